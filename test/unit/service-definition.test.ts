import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/fallback/routes.js';
import { ENGINE_FAMILIES, FAMILY_QUEUES, type EngineFamily } from '#lib/engines/core/families.js';
import { localQueueName, readServiceDefinition } from '../../local/service-definition.js';

const definition = readServiceDefinition('serverless.yml');

describe('serverless.yml as the local platform reads it', () => {
  it('declares every queue with a dead-letter queue and a redrive policy', () => {
    const main = definition.queues.filter((q) => !q.logicalId.includes('DeadLetter'));
    expect(main.map((q) => q.localName).sort()).toEqual([
      'export',
      'failed-invocations',
      'import',
      'operations',
      'process',
      'process-chromium',
      'process-media',
      'process-office',
      'process-pdf',
      'webhooks',
    ]);
    for (const q of main) {
      expect(q.redrive?.maxReceiveCount, q.logicalId).toBeGreaterThanOrEqual(5);
      expect(definition.queues.some((d) => d.logicalId === q.redrive?.deadLetterLogicalId), q.logicalId).toBe(true);
      // The functions send to these by name; failed invocations reach theirs through Lambda's destinations.
      if (q.localName !== 'failed-invocations') expect(q.envVar, `${q.logicalId} needs an environment variable`).toMatch(/_QUEUE$/);
    }
  });

  it('names local queues after their logical ids', () => {
    expect(localQueueName('ImportQueue')).toBe('import');
    expect(localQueueName('ImportDeadLetterQueue')).toBe('import-dlq');
    expect(localQueueName('WebhooksQueue')).toBe('webhooks');
  });

  it('lists the same HTTP routes as the fallback function knows', () => {
    const declared = definition.routes.filter(([, p]) => p !== '/{proxy+}').map(([m, p]) => `${m} ${p}`).sort();
    expect(ROUTES.map(([m, p]) => `${m} ${p}`).sort()).toEqual(declared);
  });

  it('gives each engine family a process function consuming its own queue, the one the scheduler sends its tasks to', () => {
    const yml = parse(readFileSync('serverless.yml', 'utf8')) as { custom: { engineFunctions: Record<string, EngineFamily> } };
    expect(Object.values(yml.custom.engineFunctions).sort()).toEqual([...ENGINE_FAMILIES].sort());
    for (const [functionKey, family] of Object.entries(yml.custom.engineFunctions)) {
      const consumed = definition.mappings.filter((m) => m.functionKey === functionKey);
      expect(consumed, functionKey).toHaveLength(1);
      const queue = definition.queues.find((q) => q.logicalId === consumed[0]!.queueLogicalId);
      expect(queue?.localName, functionKey).toBe(FAMILY_QUEUES[family]);
      expect(consumed[0]!.maximumConcurrency, functionKey).toBeGreaterThan(0);
    }
  });

  it('runs every function on arm64 except the process and engine functions, whose Chromium and native engines are x86-64 builds', () => {
    const yml = parse(readFileSync('serverless.yml', 'utf8')) as {
      provider: { architecture?: string };
      functions: Record<string, { architecture?: string }>;
    };
    const architectures = Object.fromEntries(
      Object.entries(yml.functions).map(([name, fn]) => [name, fn.architecture ?? yml.provider.architecture ?? 'x86_64']),
    );
    const expected = Object.fromEntries(Object.keys(yml.functions).map((name) => [name, /^(process|engine)[A-Z]/.test(name) ? 'x86_64' : 'arm64']));
    expect(architectures).toEqual(expected);
  });
});
