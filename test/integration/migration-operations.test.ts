/**
 * The long-running operations of the migration service against dynalite, with a queue that only
 * records messages, so that each delivery (and redelivery, and race) is played by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStateBackend } from '../support/dynalite.js';
import { MigrationService, type MigrationSettings } from '#lib/google/migration/service.js';
import { childName, locationName } from '#lib/google/migration/names.js';
import type { Queue, QueueName, SendOptions } from '#lib/adapters/queue/port.js';

let backend: Awaited<ReturnType<typeof startStateBackend>>;

class RecordingQueue implements Queue {
  sent: Array<{ queue: QueueName; message: { operation: string }; opts?: SendOptions }> = [];
  async send(queue: QueueName, message: unknown, opts?: SendOptions) {
    this.sent.push({ queue, message: message as { operation: string }, opts });
  }
  async sendMany(queue: QueueName, messages: unknown[], opts?: SendOptions) {
    for (const m of messages) await this.send(queue, m, opts);
  }
}

const settings: MigrationSettings = {
  locations: ['us-central1'],
  deleteGraceSeconds: 0,
  operationDelaySeconds: 0,
  requestIdTtlSeconds: 3600,
  operationRetentionDays: 30,
  pageSizes: { default: 50, max: 1000 },
};

let n = 0;
function setup(overrides: Partial<MigrationSettings> = {}) {
  const queue = new RecordingQueue();
  const service = new MigrationService(backend.store, queue, { ...settings, ...overrides });
  const project = `proj-${++n}`;
  const parent = locationName('parent', project, 'us-central1');
  const collector = (id: string) => childName('name', project, 'us-central1', 'collectors', id);
  const op = (name: string) => childName('name', project, 'us-central1', 'operations', name.split('/').pop()!);
  const ready = async (id: string) => {
    const created = await service.createCollector(parent, id, {}, undefined);
    await service.runOperation(created.name);
    return created;
  };
  return { queue, service, parent, collector, op, ready };
}

beforeAll(async () => {
  backend = await startStateBackend();
});
afterAll(() => backend?.close());

describe('operations through the queue', () => {
  it('sends one message per mutating call and completes on delivery, once, however often it is delivered', async () => {
    const { queue, service, parent, collector, op } = setup();
    const created = await service.createCollector(parent, 'c1', { displayName: 'x' }, undefined);
    expect(queue.sent).toEqual([{ queue: 'operations', message: { operation: created.name }, opts: { delaySeconds: 0 } }]);
    expect((await service.getCollector(collector('c1'))).state).toBe('STATE_INITIALIZING');
    expect((await service.getOperation(op(created.name))).done).toBe(false);

    await service.runOperation(created.name);
    const done = await service.getOperation(op(created.name));
    expect(done).toMatchObject({ done: true, response: { collector: { state: 'STATE_READY_TO_USE' } } });
    const after = await service.getCollector(collector('c1'));

    // A redelivery changes nothing.
    await service.runOperation(created.name);
    expect(await service.getOperation(op(created.name))).toEqual(done);
    expect(await service.getCollector(collector('c1'))).toEqual(after);
  });

  it('fails an accepted operation whose precondition no longer holds when it runs', async () => {
    const { service, collector, op, ready } = setup();
    await ready('c1');
    const register = await service.actOnCollector('register', collector('c1'), undefined);
    const del = await service.deleteCollector(collector('c1'), undefined);
    await service.runOperation(register.name);
    expect(await service.getOperation(op(register.name))).toMatchObject({ done: true, error: { code: 9 } });
    await service.runOperation(del.name);
    await expect(service.getCollector(collector('c1'))).rejects.toMatchObject({ reason: 'NOT_FOUND' });
  });

  it('cancels a queued operation before the consumer claims it, and undoes a create', async () => {
    const { service, parent, collector, op } = setup();
    const created = await service.createCollector(parent, 'c1', {}, undefined);
    await service.cancelOperation(op(created.name));
    expect(await service.getOperation(op(created.name))).toMatchObject({ done: true, requestedCancellation: true, error: { code: 1 } });
    await expect(service.getCollector(collector('c1'))).rejects.toMatchObject({ reason: 'NOT_FOUND' });
    // The message still arrives: nothing happens.
    await service.runOperation(created.name);
    await expect(service.getCollector(collector('c1'))).rejects.toMatchObject({ reason: 'NOT_FOUND' });
    expect((await service.getOperation(op(created.name))).error?.code).toBe(1);
  });

  it('runs a deleted operation\'s work anyway (DeleteOperation is not a cancel)', async () => {
    const { service, collector, op, ready } = setup();
    await ready('c1');
    const register = await service.actOnCollector('register', collector('c1'), undefined);
    await service.deleteOperation(op(register.name));
    await expect(service.getOperation(op(register.name))).rejects.toMatchObject({ reason: 'NOT_FOUND' });
    await service.runOperation(register.name);
    expect((await service.getCollector(collector('c1'))).state).toBe('STATE_REGISTERED');
  });

  it('waits out a grace period longer than one SQS delay in steps of at most 900 s', async () => {
    const { queue, service, collector, ready } = setup({ deleteGraceSeconds: 2000 });
    await ready('c1');
    queue.sent = [];
    const del = await service.deleteCollector(collector('c1'), undefined);
    expect(queue.sent[0]?.opts).toEqual({ delaySeconds: 900 });
    await service.runOperation(del.name); // delivered after 900 s: not yet time
    expect(queue.sent[1]?.opts?.delaySeconds).toBeGreaterThan(1000 - 900);
    expect(queue.sent[1]?.opts?.delaySeconds).toBeLessThanOrEqual(900);
    expect((await service.getCollector(collector('c1'))).state).toBe('STATE_DELETING');
  });

  it('lets exactly one of many concurrent creates of one id win', async () => {
    const { service, parent } = setup();
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => service.createCollector(parent, 'race', {}, undefined)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) expect((r as PromiseRejectedResult).reason).toMatchObject({ reason: 'ALREADY_EXISTS' });
  });

  it('gives concurrent retries with one requestId one operation, and runs the work once', async () => {
    const { queue, service, parent } = setup();
    const results = await Promise.all(Array.from({ length: 5 }, () => service.createCollector(parent, 'same', { displayName: 'a' }, 'req-123')));
    expect(new Set(results.map((r) => r.name)).size).toBe(1);
    expect(queue.sent).toHaveLength(1);
  });

  it('serialises concurrent state changes on one collector', async () => {
    const { service, collector, ready } = setup();
    await ready('c1');
    const ops = await Promise.all(
      Array.from({ length: 4 }, (_, i) => service.updateCollector(collector('c1'), { labels: { [`k${i}`]: 'v' } }, `labels.k${i}`, undefined)),
    );
    await Promise.all(ops.map((o) => service.runOperation(o.name)));
    expect((await service.getCollector(collector('c1'))).labels).toEqual({ k0: 'v', k1: 'v', k2: 'v', k3: 'v' });
  });
});
