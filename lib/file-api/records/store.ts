/** Jobs and tasks in the state store: creation, reads, and the conditional transitions of a task. */
import { redactText } from '../../kernel/redact.js';
import { ConditionFailedError, type Condition, type StateStore } from '../../adapters/state/port.js';
import {
  ACTIVE_SHARDS,
  activeShard,
  jobKey,
  taskKey,
  userJobsShards,
  userTasksShards,
  type JobRecord,
  type TaskRecord,
  type TaskResult,
  type TaskStatus,
  watchAt,
} from './model.js';
import { listShards } from './sharded-list.js';

export interface ListOptions {
  limit: number;
  cursor?: string;
}

/** What a claim writes: the task processing from `startedAt`, from nothing done, leased until `leaseUntil`. */
const claimSet = (id: string, startedAt: string, leaseUntil: number) => ({
  status: 'processing',
  startedAt,
  // A run starts from nothing done (a re-claimed task's earlier run may have got further).
  percent: 0,
  leaseUntil,
  gsi2pk: activeShard(id),
  gsi2sk: watchAt(leaseUntil),
});

export class TaskStore {
  constructor(readonly state: StateStore) {}

  getTask(id: string): Promise<TaskRecord | undefined> {
    return this.state.get<TaskRecord>(taskKey(id));
  }

  getJob(id: string): Promise<JobRecord | undefined> {
    return this.state.get<JobRecord>(jobKey(id));
  }

  async getTasks(ids: readonly string[]): Promise<TaskRecord[]> {
    const found = await this.state.getMany<TaskRecord>(ids.map(taskKey));
    const byId = new Map(found.map((t) => [t.id, t]));
    return ids.map((id) => byId.get(id)).filter((t): t is TaskRecord => Boolean(t));
  }

  /** Tasks first, the job last: a job is visible only once all its tasks exist. */
  async createJob(job: JobRecord, tasks: TaskRecord[]): Promise<void> {
    await this.state.putMany(tasks);
    await this.state.put(job, { condition: { exists: false } });
  }

  async createTask(task: TaskRecord): Promise<void> {
    await this.state.put(task, { condition: { exists: false } });
  }

  /** The user's live tasks, or with `sandbox` the sandbox's, newest first over the index's shards. */
  listTasks(userId: number, opts: ListOptions, sandbox = false) {
    return listShards<TaskRecord>(this.state, userTasksShards(userId, sandbox), opts);
  }

  listJobs(userId: number, opts: ListOptions, sandbox = false) {
    return listShards<JobRecord>(this.state, userJobsShards(userId, sandbox), opts);
  }

  /**
   * Tasks under way (queued or processing) that the sweeper should look at: their lease ended, or
   * they were queued, before `beforeSeconds` (epoch seconds). Reads the sparse index, never the table.
   */
  async *underWay(beforeSeconds: number): AsyncGenerator<TaskRecord> {
    for (const shard of ACTIVE_SHARDS) {
      let cursor: string | undefined;
      do {
        const page = await this.state.query<TaskRecord>(shard, { index: 'gsi2', below: watchAt(beforeSeconds), cursor });
        yield* page.items;
        cursor = page.cursor;
      } while (cursor);
    }
  }

  /** Marks a waiting task as queued; false when another caller did it first. */
  async markQueued(id: string): Promise<boolean> {
    const now = Date.now();
    return this.#try(() =>
      this.state.update(taskKey(id), { set: { queuedAt: new Date(now).toISOString(), gsi2pk: activeShard(id), gsi2sk: watchAt(now / 1000) } }, {
        condition: { equals: { status: 'waiting', queuedAt: null } },
      }),
    );
  }

  /** Adds `dependant` to the task's dependants (standalone tasks that name it as input). */
  async addDependant(id: string, dependant: string): Promise<TaskRecord | undefined> {
    try {
      return await this.state.update<TaskRecord>(taskKey(id), { add: { dependants: new Set([dependant]) } }, { condition: { exists: true } });
    } catch (err) {
      if (err instanceof ConditionFailedError) return undefined;
      throw err;
    }
  }

  /**
   * Claims a task for one run: a waiting task, or a processing one whose lease has run out (its
   * consumer died). Returns the claimed record, or undefined when it is not claimable.
   */
  async claim(task: TaskRecord, leaseSeconds: number, now = Date.now()): Promise<TaskRecord | undefined> {
    const nowSeconds = Math.floor(now / 1000);
    return this.#claim(task.id, claimSet(task.id, task.startedAt ?? new Date(now).toISOString(), nowSeconds + leaseSeconds), {
      exists: true,
      anyOf: [{ equals: { status: 'waiting' } }, { equals: { status: 'processing' }, absentOrBelow: { leaseUntil: nowSeconds } }],
    });
  }

  /**
   * Claims a waiting task with one conditional write and no read first: a waiting task has never
   * started, so its start is now. Undefined when it is not waiting (claimed, ended, gone): the caller
   * reads it to know why. `ready`: the task has just become ready and is run where that happened
   * (lib/file-api/tasks/inline.ts); the same write marks it queued, so only one caller runs it (as
   * markQueued), and its lease puts it in the sweeper's index, which queues it again should that
   * invocation die.
   */
  async claimWaiting(id: string, leaseSeconds: number, opts: { ready?: boolean } = {}, now = Date.now()): Promise<TaskRecord | undefined> {
    const startedAt = new Date(now).toISOString();
    const set = { ...claimSet(id, startedAt, Math.floor(now / 1000) + leaseSeconds), ...(opts.ready ? { queuedAt: startedAt } : {}) };
    return this.#claim(id, set, { exists: true, equals: { status: 'waiting', ...(opts.ready ? { queuedAt: null } : {}) } });
  }

  async #claim(id: string, set: Record<string, unknown>, condition: Condition): Promise<TaskRecord | undefined> {
    try {
      return await this.state.update<TaskRecord>(taskKey(id), { set, add: { attempt: 1 } }, { condition });
    } catch (err) {
      if (err instanceof ConditionFailedError) return undefined;
      throw err;
    }
  }

  /** Extends the lease of a run; false when the run no longer owns the task (cancelled, re-claimed). */
  heartbeat(id: string, attempt: number, leaseSeconds: number): Promise<boolean> {
    const leaseUntil = Math.floor(Date.now() / 1000) + leaseSeconds;
    return this.#try(() =>
      this.state.update(taskKey(id), { set: { leaseUntil, gsi2sk: watchAt(leaseUntil) } }, {
        condition: { equals: { status: 'processing', attempt } },
      }),
    );
  }

  /**
   * Records how far a run is (`percent`, 0–99); the task as written, or undefined when the run no
   * longer owns the task (ended, cancelled, re-claimed): a lost run never writes.
   */
  async progress(id: string, attempt: number, percent: number): Promise<TaskRecord | undefined> {
    try {
      return await this.state.update<TaskRecord>(taskKey(id), { set: { percent } }, { condition: { equals: { status: 'processing', attempt } } });
    } catch (err) {
      if (err instanceof ConditionFailedError) return undefined;
      throw err;
    }
  }

  /** Gives up a run's lease so that the redelivered message can claim the task at once. */
  release(id: string, attempt: number): Promise<boolean> {
    return this.#try(() =>
      this.state.update(taskKey(id), { set: { leaseUntil: 0, gsi2sk: watchAt(0) } }, { condition: { equals: { status: 'processing', attempt } } }),
    );
  }

  /**
   * Records the credits a task reserves (lib/file-api/tasks/billing.ts), once per task and only by the run that
   * owns it; false when the run no longer owns the task or a reservation is there already.
   */
  reserve(id: string, attempt: number, reservation: NonNullable<TaskRecord['reservation']>): Promise<boolean> {
    return this.#try(() =>
      this.state.update(taskKey(id), { set: { reservation } }, { condition: { equals: { status: 'processing', attempt, reservation: null } } }),
    );
  }

  /** Records the credits an ended task paid, once; undefined when it was settled already. */
  async settle(id: string, credits: number): Promise<TaskRecord | undefined> {
    try {
      return await this.state.update<TaskRecord>(taskKey(id), { set: { credits, settledAt: new Date().toISOString() } }, {
        condition: { exists: true, equals: { settledAt: null }, oneOf: { status: ['finished', 'error'] } },
      });
    } catch (err) {
      if (err instanceof ConditionFailedError) return undefined;
      throw err;
    }
  }

  /** Ends a run successfully; undefined when the run no longer owns the task. */
  async finish(id: string, attempt: number, result: TaskResult, extra: Partial<TaskRecord> = {}): Promise<TaskRecord | undefined> {
    return this.#end(id, { status: 'finished', result, percent: 100, ...extra }, { equals: { status: 'processing', attempt } });
  }

  /** Ends a task that waited for something outside (an upload) successfully. */
  async finishWaiting(id: string, result: TaskResult): Promise<TaskRecord | undefined> {
    const now = new Date().toISOString();
    return this.#end(id, { status: 'finished', result, percent: 100, startedAt: now, message: null, credits: 0 }, {
      equals: { status: 'waiting' },
    });
  }

  /**
   * Ends a task in error. With `attempt`, only that run may end it; without, any task still in one
   * of `from` (cancel, input failure, timeout sweep).
   */
  async fail(
    id: string,
    error: { code: string; message: string },
    guard: { attempt: number } | { from: TaskStatus[] },
    extra: Partial<TaskRecord> = {},
  ): Promise<TaskRecord | undefined> {
    const condition = 'attempt' in guard ? { equals: { status: 'processing', attempt: guard.attempt } } : { oneOf: { status: guard.from } };
    // A message leaves the task (API, webhooks, logs): URL credentials and the like never get stored.
    return this.#end(id, { status: 'error', code: error.code, message: redactText(error.message), ...extra }, condition);
  }

  async #end(id: string, set: Record<string, unknown>, condition: object): Promise<TaskRecord | undefined> {
    try {
      return await this.state.update<TaskRecord>(
        taskKey(id),
        { set: { ...set, endedAt: new Date().toISOString() }, remove: ['leaseUntil', 'gsi2pk', 'gsi2sk'] },
        { condition: { exists: true, ...condition } },
      );
    } catch (err) {
      if (err instanceof ConditionFailedError) return undefined;
      throw err;
    }
  }

  /** Replaces the stored payload (used to scrub secrets once a task has ended). */
  async setPayload(id: string, payload: Record<string, unknown>): Promise<void> {
    await this.#try(() => this.state.update(taskKey(id), { set: { payload } }, { condition: { exists: true } }));
  }

  async updateJob(id: string, set: Partial<JobRecord>, condition?: object): Promise<JobRecord | undefined> {
    try {
      return await this.state.update<JobRecord>(jobKey(id), { set }, { condition: { exists: true, ...condition } });
    } catch (err) {
      if (err instanceof ConditionFailedError) return undefined;
      throw err;
    }
  }

  async deleteTask(id: string): Promise<TaskRecord | undefined> {
    return this.state.delete<TaskRecord>(taskKey(id));
  }

  async deleteJob(id: string): Promise<JobRecord | undefined> {
    return this.state.delete<JobRecord>(jobKey(id));
  }

  async #try(run: () => Promise<unknown>): Promise<boolean> {
    try {
      await run();
      return true;
    } catch (err) {
      if (err instanceof ConditionFailedError) return false;
      throw err;
    }
  }
}
