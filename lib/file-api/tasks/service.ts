/**
 * The file API's use cases on jobs and tasks: create (a job's task graph or one standalone task),
 * cancel, retry, delete. Endpoints validate and render; this decides and writes.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Credits } from '../account/credits.js';
import { fileType } from '../operations/framework/content-type.js';
import { safeFilename } from '../../adapters/file-store/names.js';
import { filesOf, type FileStore, type RegionFiles } from '../../adapters/file-store/port.js';
import type { Logger } from '../../kernel/log.js';
import { ApiError } from '../../kernel/errors.js';
import { minimumCredits } from '../operations/framework/credits.js';
import type { OperationDefinition } from '../operations/framework/define.js';
import { operationDefinition } from '../operations/index.js';
import { outputKey, taskPrefix, uploadPrefix } from '../operations/framework/types.js';
import { assertSandboxAdmits } from '../sandbox/operation-rules.js';
import { epochSeconds } from '../../adapters/state/port.js';
import {
  DEFAULT_TASK_TIMEOUT_SECONDS,
  TASK_LIFETIME_SECONDS,
  isEnded,
  isSandbox,
  userJobsIndex,
  userTasksIndex,
  type JobRecord,
  type TaskRecord,
} from '../records/model.js';
import type { JobPlan } from './plan.js';
import type { InlineRun, Scheduler } from './scheduler.js';
import type { TaskStore } from '../records/store.js';

export interface TaskServiceDeps {
  store: TaskStore;
  scheduler: Scheduler;
  files: FileStore;
  /** Each region's files store; without it every task's files are in `files`. */
  regionFiles?: RegionFiles;
  log: Logger;
  /**
   * The longest a task may run: what its step function can run (TASK_MAX_SECONDS). A longer or absent
   * `timeout` is cut to it, so a task ends with TIMEOUT rather than being killed with its function.
   */
  maxTaskSeconds?: number;
  /** Called once a job with its tasks, or a standalone task, is stored (webhooks). */
  onJobCreated?: (job: JobRecord, tasks: TaskRecord[]) => Promise<void>;
  onTaskCreated?: (task: TaskRecord) => Promise<void>;
  /** Refuses a request the account's balance cannot start (402 CREDITS_EXCEEDED) before anything is stored. */
  credits?: Pick<Credits, 'assertCanCreate'>;
}

/**
 * Who created a job or task: the API key (webhooks can be assigned to keys), the base URL of its links,
 * and whether it was the sandbox (its records are apart from the live ones and use no credits).
 */
export interface TaskOrigin {
  keyId?: string;
  baseUrl?: string;
  /** The processing region chosen for the request (lib/access/regions/choice.ts); a job's tasks all take it. */
  region?: string;
  sandbox?: boolean;
}

const originFields = (origin: TaskOrigin) => ({
  ...(origin.keyId ? { keyId: origin.keyId } : {}),
  ...(origin.baseUrl ? { baseUrl: origin.baseUrl } : {}),
  ...(origin.region ? { region: origin.region } : {}),
  ...(origin.sandbox ? { sandbox: true } : {}),
});

export class TaskService {
  constructor(private readonly deps: TaskServiceDeps) {}

  #newTask(args: {
    userId: number;
    jobId: string | null;
    name?: string;
    spec: OperationDefinition;
    payload: Record<string, unknown>;
    dependsOn: string[];
    now: Date;
    retryOf?: string;
    origin?: TaskOrigin;
    sandbox?: boolean;
    /** Chosen beforehand when tasks of one job name each other. */
    id?: string;
  }): TaskRecord {
    const id = args.id ?? randomUUID();
    const createdAt = args.now.toISOString();
    return {
      pk: `task#${id}`,
      sk: 'task',
      gsi1pk: userTasksIndex(args.userId, args.sandbox, id),
      gsi1sk: `${createdAt}#${id}`,
      id,
      userId: args.userId,
      jobId: args.jobId,
      ...(args.name ? { name: args.name } : {}),
      // The name the client used (an alias stays an alias in what it is shown).
      operation: typeof args.payload.operation === 'string' ? args.payload.operation : args.spec.name,
      step: args.spec.step,
      status: 'waiting',
      message: args.spec.creation?.kind === 'upload' ? 'Waiting for upload' : null,
      code: null,
      percent: 0,
      credits: null,
      engine: null,
      engineVersion: null,
      payload: args.payload,
      result: null,
      createdAt,
      startedAt: null,
      endedAt: null,
      expiresAt: epochSeconds(args.now) + TASK_LIFETIME_SECONDS,
      dependsOn: args.dependsOn,
      ignoreError: args.payload.ignore_error === true,
      timeoutSeconds: Math.min(
        typeof args.payload.timeout === 'number' ? args.payload.timeout : DEFAULT_TASK_TIMEOUT_SECONDS,
        this.deps.maxTaskSeconds ?? DEFAULT_TASK_TIMEOUT_SECONDS,
      ),
      retryOf: args.retryOf ?? null,
      copyOf: args.retryOf ?? null,
      ...originFields(args.origin ?? {}),
      ...(args.sandbox ? { sandbox: true } : {}),
    };
  }

  /**
   * Work that happens at creation: content sent with the request is stored (state items are small,
   * files are not). An upload task's form is not made here: it is signed each time the task is shown
   * (lib/file-api/tasks/links.ts), so it is valid whatever credentials signed it last.
   */
  async #prepare(task: TaskRecord): Promise<void> {
    const p = task.payload;
    const creation = operationDefinition(task.operation)?.creation;
    if (creation?.kind === 'content') {
      const decoded = creation.decode(p);
      const bytes = decoded.bytes;
      const filename = safeFilename(decoded.filename);
      await filesOf(this.deps, task).put(outputKey(task.id, filename), bytes, { contentType: fileType(filename, bytes) });
      task.staged = { filename, md5: createHash('md5').update(bytes).digest('hex'), size: bytes.length };
      // The content is in the file now; the payload keeps only its size.
      task.payload = { ...p, [creation.field]: `[${bytes.length} bytes]` };
    }
  }

  /**
   * `jobId`: an id chosen beforehand (a signed URL claims its cache entry for the job before creating it).
   * `inline`: the tasks that need no engine run here, before this returns (./inline.ts): a job of only
   * such tasks has ended by then; the records returned are as created.
   */
  async createJob(
    userId: number,
    plan: JobPlan,
    now = new Date(),
    origin: TaskOrigin & { jobId?: string } = {},
    inline?: InlineRun,
  ): Promise<{ job: JobRecord; tasks: TaskRecord[] }> {
    // The sandbox uses no credits, and runs only on whitelisted files.
    if (origin.sandbox) assertSandboxAdmits(plan.tasks.map((t) => ({ prefix: `tasks.${t.name}.`, spec: t.spec, payload: t.payload })));
    else await this.deps.credits?.assertCanCreate(userId, plan.tasks.map((t) => minimumCredits(t.spec)));
    const jobId = origin.jobId ?? randomUUID();
    const ids = new Map(plan.tasks.map((t) => [t.name, randomUUID()]));
    const tasks = plan.tasks.map((t) => {
      const task = this.#newTask({
        userId,
        jobId,
        name: t.name,
        spec: t.spec,
        payload: t.payload,
        dependsOn: t.inputNames.map((n) => ids.get(n)!),
        now,
        origin: origin.region ? { region: origin.region } : undefined,
        sandbox: origin.sandbox,
        id: ids.get(t.name),
      });
      return task;
    });
    for (const task of tasks) {
      const dependants = tasks.filter((t) => t.dependsOn.includes(task.id)).map((t) => t.id);
      if (dependants.length) task.dependants = new Set(dependants);
      await this.#prepare(task);
    }
    const createdAt = now.toISOString();
    const job: JobRecord = {
      pk: `job#${jobId}`,
      sk: 'job',
      gsi1pk: userJobsIndex(userId, origin.sandbox, jobId),
      gsi1sk: `${createdAt}#${jobId}`,
      id: jobId,
      userId,
      tag: plan.tag,
      status: 'waiting',
      createdAt,
      startedAt: null,
      endedAt: null,
      expiresAt: epochSeconds(now) + TASK_LIFETIME_SECONDS,
      taskIds: tasks.map((t) => t.id),
      webhookUrl: plan.webhookUrl,
      ...originFields(origin),
    };
    await this.deps.store.createJob(job, tasks);
    this.deps.log.info('job created', { jobId, tasks: tasks.length });
    await this.deps.onJobCreated?.(job, tasks);
    for (const task of tasks) {
      if (task.dependsOn.length === 0 && operationDefinition(task.operation)?.creation?.kind !== 'upload') await this.deps.scheduler.enqueue(task, false, [], inline);
    }
    return { job, tasks };
  }

  /** A standalone task: `input` names task ids the caller can see. */
  async createTask(
    userId: number,
    spec: OperationDefinition,
    payload: Record<string, unknown>,
    inputIds: string[],
    opts: { retryOf?: string } & TaskOrigin = {},
  ): Promise<TaskRecord> {
    const inputs = await this.deps.store.getTasks(inputIds);
    // A sandbox task takes only sandbox inputs, a live one only live ones.
    const missing = inputIds.filter((id) => !inputs.some((t) => t.id === id && t.userId === userId && isSandbox(t) === Boolean(opts.sandbox)));
    if (missing.length) {
      throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', {
        fields: { input: missing.map((id) => `There is no task with id ${id}.`) },
      });
    }
    if (opts.sandbox) assertSandboxAdmits([{ prefix: '', spec, payload }]);
    else await this.deps.credits?.assertCanCreate(userId, [minimumCredits(spec)]);
    // The inputs' files never leave their region: the task runs where they are.
    const region = inputs.find((t) => t.region)?.region ?? opts.region;
    if (inputs.some((t) => t.region && t.region !== region)) {
      throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', {
        fields: { input: [`The input tasks are in different regions (${[...new Set(inputs.map((t) => t.region))].join(', ')}); their files cannot be used together.`] },
      });
    }
    const task = this.#newTask({ userId, jobId: null, spec, payload, dependsOn: inputIds, now: new Date(), retryOf: opts.retryOf, origin: { ...opts, region }, sandbox: opts.sandbox });
    await this.#prepare(task);
    await this.deps.store.createTask(task);
    await this.deps.onTaskCreated?.(task);
    if (spec.creation?.kind === 'upload') return task;
    // Register with the inputs first, then look: an input that finishes in between starts this task
    // itself, and starting is idempotent.
    for (const id of inputIds) await this.deps.store.addDependant(id, task.id);
    await this.deps.scheduler.startReady([task.id]);
    return (await this.deps.store.getTask(task.id)) ?? task;
  }

  async cancel(task: TaskRecord): Promise<TaskRecord> {
    if (isEnded(task.status)) {
      throw new ApiError('FAILED_PRECONDITION', 'The given data was invalid.', {
        fields: { status: ['Cannot change status: task already completed.'] },
      });
    }
    const cancelled = await this.deps.store.fail(task.id, { code: 'CANCELLED', message: 'The task was cancelled.' }, {
      from: ['waiting', 'processing'],
    });
    if (!cancelled) return this.cancel((await this.deps.store.getTask(task.id)) ?? { ...task, status: 'finished' });
    await this.deps.scheduler.afterEnd(cancelled);
    return cancelled;
  }

  /** A new task with the same arguments and inputs (`retry_of_task_id` set). */
  async retry(task: TaskRecord, spec: OperationDefinition): Promise<TaskRecord> {
    // Its file came with the request or the upload: there is nothing to run again.
    if (spec.creation?.kind === 'upload' || spec.creation?.kind === 'content') {
      throw new ApiError('FAILED_PRECONDITION', `A ${task.operation} task cannot be retried; create a new one.`);
    }
    const retried = await this.createTask(task.userId, spec, task.payload, task.dependsOn, {
      retryOf: task.id,
      keyId: typeof task.keyId === 'string' ? task.keyId : undefined,
      baseUrl: typeof task.baseUrl === 'string' ? task.baseUrl : undefined,
      region: task.region,
      sandbox: isSandbox(task),
    });
    return retried;
  }

  async deleteTask(task: TaskRecord): Promise<void> {
    if (!isEnded(task.status)) await this.cancel(task).catch(() => undefined);
    const files = filesOf(this.deps, task);
    await files.deletePrefix(taskPrefix(task.id));
    await files.deletePrefix(uploadPrefix(task.id));
    await this.deps.store.deleteTask(task.id);
  }

  async deleteJob(job: JobRecord): Promise<void> {
    for (const task of await this.deps.store.getTasks(job.taskIds)) await this.deleteTask(task);
    await this.deps.store.deleteJob(job.id);
  }
}
