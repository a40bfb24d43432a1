/**
 * scripts/serverless-engine-functions.cjs on serverless.yml's own functions: with ENGINE_ISOLATION=function
 * (the deployed default) each process function invokes its engine function, which alone carries the
 * engine settings and, for office, the container image; with `inline` the engine functions are left out.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const EngineFunctions = createRequire(import.meta.url)('../../scripts/serverless-engine-functions.cjs') as (new (sls: unknown) => {
  apply(): void;
  confineEnvironments(): void;
}) & { invokesItsEngines(sls: unknown, name: string): boolean };

type Fn = { handler?: string; image?: { name?: string; command: string[] }; environment?: Record<string, string>; memorySize?: number; ephemeralStorageSize?: number };

/** serverless.yml's functions and custom section, anchors resolved, as the plugin sees them. */
function service(isolation: string) {
  const yml = parse(readFileSync('serverless.yml', 'utf8'), { merge: true, maxAliasCount: -1 }) as { custom: Record<string, unknown>; functions: Record<string, Fn> };
  const functions = structuredClone(yml.functions);
  const resources: Record<string, { Properties: { Environment: { Variables: Record<string, string> } } }> = {};
  const sls = {
    service: { service: 'svc', custom: { ...yml.custom, engineIsolation: isolation }, functions, provider: { environment: { STATE_TABLE: 't' }, compiledCloudFormationTemplate: { Resources: resources } } },
    getProvider: () => ({ getStage: () => 'dev', naming: { getLambdaLogicalId: (n: string) => `${n[0]!.toUpperCase()}${n.slice(1)}LambdaFunction` } }),
  };
  return { plugin: new EngineFunctions(sls), functions, resources, sls };
}

afterEach(() => {
  delete process.env.OFFICE_IMAGE;
});

describe('the engine functions plugin', () => {
  it('splits each family into a process function that invokes and an engine function that runs', () => {
    process.env.OFFICE_IMAGE = '1';
    const { plugin, functions, resources, sls } = service('function');
    plugin.apply();
    expect(functions.processMedia!.environment).toMatchObject({ ENGINE_ISOLATION: 'function', ENGINE_FUNCTION_NAME: 'svc-dev-engineMedia' });
    // The process function probes no engine (its package holds none): it sees each one as the engine
    // function's package has it (lib/engines/core/families.ts PACKAGED), as task creation does.
    expect(functions.processMedia!.environment!.ENGINE_FAMILY).toBeUndefined();
    expect(EngineFunctions.invokesItsEngines(sls, 'processMedia')).toBe(true);
    expect(EngineFunctions.invokesItsEngines(sls, 'engineMedia')).toBe(false);
    expect(EngineFunctions.invokesItsEngines(sls, 'jobsCreate')).toBe(false);
    expect(functions.processMedia!.memorySize).toBe(512);
    expect(functions.processMedia!.ephemeralStorageSize).toBeUndefined();
    expect(functions.engineMedia!.environment).toMatchObject({ ENGINE_FAMILY: 'media', ENGINE_REAP: 'true', ENGINE_CONFINEMENT: 'platform', ENGINE_MAX_INPUT_BYTES: String(2048 * 1024 * 1024) });
    expect(functions.engineMedia!.environment!.ENGINE_MAX_INPUT_BYTES).toBe(functions.processMedia!.environment!.ENGINE_MAX_INPUT_BYTES);
    // LibreOffice runs in the engine function's image; the process function is a zip.
    expect(functions.engineOffice!.image).toEqual({ name: 'office', command: ['functions/engines/office.handler'] });
    expect(functions.processOffice!.handler).toBe('functions/tasks/process-office-step.handler');
    // The compiled environment of an engine function keeps engine settings only.
    resources.EngineMediaLambdaFunction = { Properties: { Environment: { Variables: { STATE_TABLE: 't', URL_SIGNING_SECRET: 's', PROCESS_QUEUE: 'q', ENGINE_FAMILY: 'media', FFMPEG_PATH: 'ffmpeg', LOG_LEVEL: 'info' } } } };
    plugin.confineEnvironments();
    expect(Object.keys(resources.EngineMediaLambdaFunction.Properties.Environment.Variables).sort()).toEqual(['ENGINE_FAMILY', 'FFMPEG_PATH', 'LOG_LEVEL']);
  });

  it('leaves the engine functions out with ENGINE_ISOLATION=inline, and both office functions without an image', () => {
    const { plugin, functions, sls } = service('inline');
    plugin.apply();
    expect(EngineFunctions.invokesItsEngines(sls, 'processPdf')).toBe(false);
    expect(Object.keys(functions).filter((n) => n.startsWith('engine'))).toEqual([]);
    expect(functions.processOffice).toBeUndefined();
    expect(functions.processPdf!.environment).toMatchObject({ ENGINE_FAMILY: 'pdf' });
    expect(functions.processPdf!.environment!.ENGINE_ISOLATION).toBeUndefined();
    expect(functions.processPdf!.memorySize).toBe(2048);
  });
});
