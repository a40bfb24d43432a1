/**
 * Credits through the pipeline with the real state store (dynalite) and object storage (s3rver): a
 * balance shared by many tasks starting at once, messages delivered more than once or after a crash,
 * refunds on failures that are not the input's fault, creation refused at an exhausted balance, the
 * usage ledger. The queue is a recording stand-in: these tests deliver by hand.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Credits } from '#lib/file-api/account/credits.js';
import { dayOf, Usage } from '#lib/file-api/account/usage.js';
import { Users, userKey, type UserRecord } from '#lib/access/auth/users.js';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { ENGINES } from '#lib/engines/core/catalog.js';
import { ApiError } from '#lib/kernel/errors.js';
import { createLogger } from '#lib/kernel/log.js';
import { reservationFor } from '#lib/file-api/operations/framework/credits.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { operationDefinition } from '#lib/file-api/operations/index.js';
import { TaskFailure, type Implementation, type InputFile } from '#lib/file-api/operations/framework/types.js';
import { TaskBilling } from '#lib/file-api/tasks/billing.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { runTask, type RunnerDeps } from '#lib/file-api/tasks/runner.js';
import type { Scheduler } from '#lib/file-api/tasks/scheduler.js';
import type { TaskService } from '#lib/file-api/tasks/service.js';
import type { TaskStore } from '#lib/file-api/records/store.js';
import { sweep } from '#lib/file-api/tasks/sweeper.js';
import { watchAt, type TaskRecord } from '#lib/file-api/records/model.js';
import { importStaged, untilAborted } from '../support/operations.js';
import type { RecordingQueue } from '../support/recording-queue.js';
import { useTaskBackends, wireTasks } from '../support/task-harness.js';

const log = createLogger({}, { level: 'silent' });
/** Every engine present, so a task's cost does not depend on this machine. */
const registry = newEngineRegistry(parseEngineConfig({}), ENGINES.map((d) => ({ ...d, detect: () => ({ versions: [{ version: '1.0' }] }) })));

const backends = useTaskBackends();

/** The services as the platform wires them (lib/wiring/tasks.ts), on the test backends and a recording queue. */
function wire() {
  const { state } = backends;
  const credits = new Credits({ state: state.store, users: new Users(state.store, { username: 'someone', email: 'someone@example.com', credits: 'unlimited' }) });
  const usage = new Usage(state.store, 400);
  const estimate = (task: TaskRecord, inputs: readonly InputFile[]) => reservationFor(registry, operationDefinition(task.operation)!, task, inputs);
  const w = wireTasks(backends, { log, billing: (store) => new TaskBilling({ store, credits, usage, log, estimate }), service: { credits } });
  return { ...w, billing: w.billing!, credits, usage };
}
let w: ReturnType<typeof wire>;
let queue: RecordingQueue;
let store: TaskStore;
let scheduler: Scheduler;
let service: TaskService;
let credits: Credits;
let usage: Usage;
let billing: TaskBilling;
beforeEach(() => {
  w = wire();
  ({ queue, store, scheduler, service, credits, usage, billing } = w);
});

/** Each test has its own user, so balances and ledgers do not mix. */
let lastUser = 100;
const newUser = async (balance: number | 'unlimited') => {
  const user = ++lastUser;
  // An account as `npm run users -- create` stores one (only the built-in account 1 exists unmade).
  const record: UserRecord = { ...userKey(user), id: user, username: `user ${user}`, email: `user${user}@example.com`, credits: 0, createdAt: new Date().toISOString() };
  await backends.state.store.put(record);
  await credits.setCredits(user, balance);
  return user;
};
const account = async (user: number) => (await backends.state.store.get<UserRecord>(userKey(user)))!;
const updateTask = (id: string, set: Record<string, unknown>) => backends.state.store.update({ pk: `task#${id}`, sk: 'task' }, { set });

/** A convert that takes one credit per image, as the image engine does. */
const convert: Implementation = async (ctx) => ({ result: { files: [await ctx.save('out.jpg', 'jpeg bytes')] }, credits: ctx.inputs.length });
const failing = (code: string): Implementation => async () => {
  throw new TaskFailure(code, `failed with ${code}`);
};
const deps = (process: Implementation = convert, extra: Partial<RunnerDeps> = {}): RunnerDeps => w.deps({ 'import/raw': importStaged, convert: process }, extra);

const convertJob = (user: number) =>
  service.createJob(
    user,
    planJob({
      tasks: {
        in: { operation: 'import/raw', file: 'png bytes', filename: 'photo.png' },
        conv: { operation: 'convert', input: 'in', output_format: 'jpg' },
      },
    }),
  );

/** Runs the queued imports, then hands back the convert tasks' messages. */
async function importThenTake(): Promise<string[]> {
  for (const m of queue.take('import')) await runTask(m.message.taskId, deps());
  return queue.take('process').map((m) => m.message.taskId as string);
}

const today = () => dayOf(new Date());

/** A user with `balance`, and the convert task of a job of theirs claimed by a run (attempt 1) that has not reserved yet. */
async function claimedConvert(balance: number) {
  const user = await newUser(balance);
  await convertJob(user);
  const [id] = await importThenTake();
  const claimed = (await store.claim((await store.getTask(id!))!, 30))!;
  const inputs: InputFile[] = [{ filename: 'photo.png', size: 9, taskId: claimed.dependsOn[0]!, key: 'k' }];
  return { user, id: id!, claimed, inputs };
}

describe('credits under concurrency', () => {
  it('takes holds on one balance exactly as far as it goes, never below zero', async () => {
    const user = await newUser(20);
    const holds = await Promise.all(Array.from({ length: 100 }, (_, i) => credits.hold(user, `task-${i}`, 1)));
    expect(holds.filter((h) => h.kind === 'held')).toHaveLength(20);
    expect(holds.filter((h) => h.kind === 'insufficient')).toHaveLength(80);
    expect((await account(user)).credits).toBe(0);
    expect((await account(user)).creditHolds?.size).toBe(20);
    // Each hold ends once: releasing every task twice gives back once for each that held.
    const ids = Array.from({ length: 100 }, (_, i) => `task-${i}`);
    const released = await Promise.all([...ids, ...ids].map((id) => credits.release(user, id, 1)));
    expect(released.filter(Boolean)).toHaveLength(20);
    expect((await account(user)).credits).toBe(20);
    expect((await account(user)).creditHolds).toBeUndefined();
  });

  it('30 one-credit tasks starting at once on a balance of 10: 10 finish, 20 end CREDITS_EXCEEDED, the balance ends at 0', async () => {
    const user = await newUser(10);
    const jobs = await Promise.all(Array.from({ length: 30 }, () => convertJob(user)));
    const converts = await importThenTake();
    expect(converts).toHaveLength(30);
    await Promise.all(converts.map((id) => runTask(id, deps())));
    const ended = await store.getTasks(converts);
    expect(ended.filter((t) => t.status === 'finished')).toHaveLength(10);
    const refused = ended.filter((t) => t.status === 'error');
    expect(refused).toHaveLength(20);
    for (const t of refused) {
      expect(t).toMatchObject({ code: 'CREDITS_EXCEEDED', credits: 0 });
      expect(t.message).toMatch(/^Not enough credits: this task needs 1 and the account has 0\.$/);
    }
    expect(ended.filter((t) => t.status === 'finished').every((t) => t.credits === 1)).toBe(true);
    expect(await account(user)).toMatchObject({ credits: 0 });
    expect((await account(user)).creditHolds).toBeUndefined();
    const jobStates = await Promise.all(jobs.map(({ job }) => store.getJob(job.id)));
    expect(jobStates.filter((j) => j?.status === 'finished')).toHaveLength(10);

    const report = await usage.report(user, today(), today());
    expect(report.totals.operations).toEqual({
      convert: { credits: 10, tasks: 30, failed: 20 },
      'import/raw': { credits: 0, tasks: 30, failed: 0 },
    });
  });
});

describe('credits under at-least-once delivery', () => {
  it('charges a task once when its message comes twice at once and again later', async () => {
    const user = await newUser(5);
    await convertJob(user);
    const [id] = await importThenTake();
    await Promise.all([runTask(id!, deps()), runTask(id!, deps())]);
    await runTask(id!, deps());
    expect(await store.getTask(id!)).toMatchObject({ status: 'finished', credits: 1, attempt: 1 });
    expect((await account(user)).credits).toBe(4);
    expect((await usage.report(user, today(), today())).totals.operations.convert).toEqual({ credits: 1, tasks: 1, failed: 0 });
  });

  it('does not reserve again for a run that died after reserving, and reserves for one that died in between', async () => {
    // Died after taking the credit: the next run takes none.
    const { user, id, claimed, inputs } = await claimedConvert(5);
    expect(await billing.reserve(claimed, 1, inputs)).not.toBe(false);
    expect((await account(user)).credits).toBe(4);
    await updateTask(id, { leaseUntil: 1 });
    await runTask(id, deps());
    expect(await store.getTask(id)).toMatchObject({ status: 'finished', attempt: 2, credits: 1 });
    expect((await account(user)).credits).toBe(4);

    // Died after writing its reservation on the task, before taking it from the balance: the next run takes it.
    const other = await claimedConvert(5);
    expect(await store.reserve(other.id, 1, { credits: 1, held: true })).toBe(true);
    expect(await store.reserve(other.id, 1, { credits: 1, held: true })).toBe(false);
    await updateTask(other.id, { leaseUntil: 1 });
    await runTask(other.id, deps());
    expect(await store.getTask(other.id)).toMatchObject({ status: 'finished', attempt: 2, credits: 1 });
    expect((await account(other.user)).credits).toBe(4);
    expect((await account(other.user)).creditHolds).toBeUndefined();
    expect((await usage.report(other.user, today(), today())).totals.operations.convert?.tasks).toBe(1);
  });
});

describe('refunds', () => {
  it('refunds engine failures and charges failures of the input', async () => {
    const user = await newUser(5);
    await convertJob(user);
    await convertJob(user);
    const [engineFails, inputFails] = await importThenTake();
    await runTask(engineFails!, deps(failing('CONVERSION_FAILED')));
    expect(await store.getTask(engineFails!)).toMatchObject({ status: 'error', code: 'CONVERSION_FAILED', credits: 0 });
    expect((await account(user)).credits).toBe(5);
    await runTask(inputFails!, deps(failing('INVALID_INPUT')));
    expect(await store.getTask(inputFails!)).toMatchObject({ status: 'error', code: 'INVALID_INPUT', credits: 1 });
    expect((await account(user)).credits).toBe(4);
    expect((await usage.report(user, today(), today())).totals.operations.convert).toEqual({ credits: 1, tasks: 2, failed: 2 });
  });

  it('refunds a task cancelled while it runs', async () => {
    const user = await newUser(5);
    await convertJob(user);
    const [id] = await importThenTake();
    const slow = untilAborted();
    const run = runTask(id!, deps(slow.implementation, { leaseSeconds: 3 }));
    await slow.started;
    expect((await account(user)).credits).toBe(4);
    await service.cancel((await store.getTask(id!))!);
    await run;
    expect(await store.getTask(id!)).toMatchObject({ status: 'error', code: 'CANCELLED', credits: 0 });
    expect((await account(user)).credits).toBe(5);
  });

  it('refunds a run the sweeper ends with TIMEOUT after its consumer died', async () => {
    const { user, id, claimed, inputs } = await claimedConvert(5);
    await billing.reserve(claimed, 1, inputs);
    expect((await account(user)).credits).toBe(4);
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    await updateTask(id, { leaseUntil: 5, gsi2sk: watchAt(5), startedAt: hourAgo, timeoutSeconds: 60 });
    await sweep({ store, scheduler, queue, log, graceSeconds: 60 });
    expect(await store.getTask(id)).toMatchObject({ status: 'error', code: 'TIMEOUT', credits: 0 });
    expect((await account(user)).credits).toBe(5);
  });

  it('gives the credits back when the task was cancelled between its reservation and its hold', async () => {
    const { user, id, claimed } = await claimedConvert(5);
    expect(await store.reserve(id, 1, { credits: 1, held: true })).toBe(true);
    // Cancelled and settled now, with nothing held yet.
    await service.cancel((await store.getTask(id))!);
    expect(await store.getTask(id)).toMatchObject({ status: 'error', credits: 0, settledAt: expect.any(String) });
    // The run goes on to take the hold, sees the end, and gives it back.
    const reserved: TaskRecord = { ...claimed, reservation: { credits: 1, held: true } };
    expect(await billing.reserve(reserved, 1, [])).toBe(false);
    expect((await account(user)).credits).toBe(5);
    expect((await account(user)).creditHolds).toBeUndefined();
  });
});

describe('creation at an exhausted balance', () => {
  const is402 = (err: unknown) => err instanceof ApiError && err.status === 402 && err.code === 'CREDITS_EXCEEDED';

  it('refuses a job or a task that costs credits with 402 CREDITS_EXCEEDED and stores nothing', async () => {
    const user = await newUser(0);
    const refused = await convertJob(user).catch((err: unknown) => err);
    expect(is402(refused)).toBe(true);
    expect((refused as Error).message).toBe('Your account has run out of credits: 0 left, and the cheapest task of this request costs 1.');
    const spec = operationDefinition('convert')!;
    expect(is402(await service.createTask(user, spec, { operation: 'convert', output_format: 'jpg' }, []).catch((err: unknown) => err))).toBe(true);
    expect((await store.listJobs(user, { limit: 10 })).items).toEqual([]);
    expect((await store.listTasks(user, { limit: 10 })).items).toEqual([]);
    expect(queue.sent).toEqual([]);
  });

  it('accepts free tasks (imports, exports) at 0, and everything once credits are set again', async () => {
    const user = await newUser(0);
    const { tasks } = await service.createJob(user, planJob({ tasks: { in: { operation: 'import/raw', file: 'x', filename: 'x.txt' }, out: { operation: 'export/url', input: 'in' } } }));
    expect(tasks).toHaveLength(2);
    await credits.setCredits(user, 1);
    await expect(convertJob(user)).resolves.toBeDefined();
  });
});

describe('unlimited balances', () => {
  it('runs tasks without touching the balance and still counts their credits', async () => {
    const user = await newUser('unlimited');
    await convertJob(user);
    const [id] = await importThenTake();
    await runTask(id!, deps());
    expect(await store.getTask(id!)).toMatchObject({ status: 'finished', credits: 1, reservation: { credits: 1, held: false } });
    expect(await account(user)).toMatchObject({ creditsUnlimited: true, credits: 0 });
    expect((await usage.report(user, today(), today())).totals.credits).toBe(1);
    // Back to a counted balance: unlimited is gone, the number is what was set.
    expect(await credits.setCredits(user, 3)).toMatchObject({ credits: 3 });
    expect((await account(user)).creditsUnlimited).toBeUndefined();
  });

  it('settles a task that holds nothing with its end and counts it once, however often its message comes', async () => {
    const user = await newUser('unlimited');
    await convertJob(user);
    const [id] = await importThenTake();
    await runTask(id!, deps());
    const ended = (await store.getTask(id!))!;
    expect(ended).toMatchObject({ status: 'finished', credits: 1, settledAt: expect.any(String) });
    // Delivered again, twice at once: already ended and settled, nothing is counted again.
    await Promise.all([runTask(id!, deps()), runTask(id!, deps())]);
    expect((await store.getTask(id!))!.settledAt).toBe(ended.settledAt);
    const report = await usage.report(user, today(), today());
    expect(report.totals.operations.convert).toEqual({ credits: 1, tasks: 1, failed: 0 });
    expect(report.totals.operations['import/raw']).toMatchObject({ tasks: 1 });
  });
});
