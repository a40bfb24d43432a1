/**
 * The task services as the platform wires them (lib/wiring/tasks.ts), on test backends: the state store
 * (dynalite) and the task bucket (s3rver) started once a file, then per test a recording queue, task
 * store, scheduler and service, what `runTask` needs to run a queued task by hand, and `drain` to run
 * them all. The one copy of the wiring the pipeline, credits, sandbox, progress, job-status, dead-letter,
 * engine and webhook tests share; each passes only the hooks its test is about.
 */
import { afterAll, beforeAll } from 'vitest';
import type { FileStore } from '#lib/adapters/file-store/port.js';
import type { StateStore } from '#lib/adapters/state/port.js';
import { parseConfig, type Config } from '#lib/kernel/config.js';
import { createLogger, type Logger } from '#lib/kernel/log.js';
import type { Implementation } from '#lib/file-api/operations/framework/types.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import type { TaskBilling } from '#lib/file-api/tasks/billing.js';
import { runTask, type RunnerDeps } from '#lib/file-api/tasks/runner.js';
import { Scheduler, type SchedulerDeps } from '#lib/file-api/tasks/scheduler.js';
import { TaskService, type TaskServiceDeps } from '#lib/file-api/tasks/service.js';
import { startStateBackend } from './dynalite.js';
import { RecordingQueue, TEST_CONFIG_ENV } from './recording-queue.js';
import { startFilesBackend } from './s3rver.js';

/** The state store and the task bucket, on free ports; `close` stops both. */
export async function startTaskBackends() {
  const [state, files] = await Promise.all([startStateBackend(), startFilesBackend()]);
  return { state, files, close: async () => void (await Promise.all([state.close(), files.close()])) };
}
export type TaskBackends = Awaited<ReturnType<typeof startTaskBackends>>;

/**
 * The state store and the task bucket of a test file (or of the describe it is called in): started
 * before its tests, closed after. The two objects are returned at once and filled in when they start.
 */
export function useTaskBackends(): Pick<TaskBackends, 'state' | 'files'> {
  const backends = { state: {}, files: {} } as TaskBackends;
  beforeAll(async () => {
    const started = await startTaskBackends();
    Object.assign(backends.state, started.state);
    Object.assign(backends.files, started.files);
    backends.close = started.close;
  }, 120_000);
  afterAll(() => backends.close?.());
  return backends;
}

export interface TaskWiringOptions {
  /** The state store the task records go to (default the backends'; a counted one to count calls). */
  state?: StateStore;
  /** The files store the tasks read and write (default the backends' bucket). */
  files?: FileStore;
  log?: Logger;
  config?: Config;
  /** The scheduler's hooks (route, onJobEnded, onTaskEnded…). */
  scheduler?: Omit<SchedulerDeps, 'store' | 'queue' | 'log'>;
  /** The service's (credits, onJobCreated…). */
  service?: Omit<TaskServiceDeps, 'store' | 'scheduler' | 'files' | 'log'>;
  /** Billing over the task store: the scheduler settles with it and every run reserves with it, as deployed. */
  billing?: (store: TaskStore) => TaskBilling;
}

export type TaskWiring = ReturnType<typeof wireTasks>;

/** A fresh queue, store, scheduler and service on `backends`. */
export function wireTasks(backends: { state: { store: StateStore }; files: { files: FileStore } }, options: TaskWiringOptions = {}) {
  const log = options.log ?? createLogger({}, { level: 'silent' });
  const config = options.config ?? parseConfig({ ...TEST_CONFIG_ENV });
  const files = options.files ?? backends.files.files;
  const queue = new RecordingQueue();
  const store = new TaskStore(options.state ?? backends.state.store);
  const billing = options.billing?.(store);
  const settle = billing && { settle: (task: TaskRecord) => billing.settle(task) };
  const scheduler = new Scheduler({ store, queue, log, ...settle, ...options.scheduler });
  const service = new TaskService({ store, scheduler, files, log, ...options.service });
  /** What `runTask` needs to run a task with `implementations`; a requeue drops the message unless `extra` gives one. */
  const deps = (implementations: Record<string, Implementation>, extra: Partial<RunnerDeps> = {}): RunnerDeps => ({
    store,
    scheduler,
    files,
    config,
    log,
    implementations,
    ...(billing && { billing }),
    requeue: async () => {},
    ...extra,
  });
  /** Runs every queued message in the order sent (and what each run queues) until none is left, as the step consumers would. */
  const drain = async (implementations: Record<string, Implementation>, extra: Partial<RunnerDeps> = {}) => {
    for (let next = queue.sent.shift(); next; next = queue.sent.shift()) await runTask((next.message as { taskId: string }).taskId, deps(implementations, extra));
  };
  return { log, config, files, queue, store, billing, scheduler, service, deps, drain };
}
