/**
 * One run of a task by its step consumer. Delivery is at least once, so a run first claims the
 * task with a conditional write and holds a lease it renews while it works; a second delivery of
 * the same message finds the task claimed (and looks again when the lease would run out) or ended
 * (and does nothing). Outputs go under keys derived from the task id, so a re-run after a crash
 * overwrites its own files. Completion is conditional on still owning the run, which is how
 * cancellation and timeouts win over a run that is still going.
 */
import type { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { Config } from '../../kernel/config.js';
import { fileType, typedStream } from '../operations/framework/content-type.js';
import { safeDir, safeFilename, uniqueName } from '../../adapters/file-store/names.js';
import { filesOf, type FileStore, type RegionFiles } from '../../adapters/file-store/port.js';
import type { Logger } from '../../kernel/log.js';
import { redactError, redactText, secretValues } from '../../kernel/redact.js';
import { RunElsewhere, TaskFailure, outputKey, type Implementation, type InputFile, type OperationContext } from '../operations/framework/types.js';
import type { ProcessQueueName, QueueName } from '../../adapters/queue/port.js';
import { isEnded, isSandbox, type FileEntry, type TaskRecord } from '../records/model.js';
import type { SandboxFiles } from '../sandbox/files.js';
import { admitSandboxImport } from '../sandbox/gate.js';
import type { TaskBilling } from './billing.js';
import { progressWriter, type Progress } from '../records/progress.js';
import type { InlineRun, Scheduler } from './scheduler.js';
import type { TaskStore } from '../records/store.js';

export interface RunnerDeps {
  store: TaskStore;
  scheduler: Scheduler;
  files: FileStore;
  /** Each region's files store: a task reads and writes only its region's. */
  regionFiles?: RegionFiles;
  config: Config;
  log: Logger;
  implementations: Record<string, Implementation>;
  /** Sends the task's message again after a delay (seconds, at most 900). */
  requeue: (task: TaskRecord, delaySeconds: number) => Promise<void>;
  /**
   * Hands the task to another engine family's process queue (a stale message, see RunElsewhere), with
   * the number of times it has been handed on so far. Consumers without it fail such a task.
   */
  forward?: (task: TaskRecord, queue: ProcessQueueName, hops: number) => Promise<void>;
  /** The sandbox whitelist every file of a sandbox import must be on (lib/file-api/sandbox); without it, none is. */
  sandboxFiles?: Pick<SandboxFiles, 'notAllowed'>;
  /** Reserves the task's credits before it runs (lib/file-api/tasks/billing.ts); without it runs are not charged. */
  billing?: Pick<TaskBilling, 'reserve' | 'settlementAtFinish' | 'count'>;
  /** The queue this consumer reads (a task is never handed on to it). */
  queue?: QueueName;
  /** How many times this message's task was handed on already. */
  hops?: number;
  leaseSeconds?: number;
  /**
   * When the invocation running the task ends (epoch ms). The run stops with TIMEOUT a little before,
   * so the task ends once, with a clear error, instead of being killed with its function and run again.
   */
  deadlineMs?: number;
  /**
   * Called with the task as written when the run claims it (it starts processing) and after each
   * progress write (at most one a second per task, lib/file-api/records/progress.ts); its failure is logged. The
   * run's end is announced by the scheduler's hooks, after the last of these has settled.
   */
  onTaskUpdated?: (task: TaskRecord) => Promise<void>;
  /** Dependants that need no engine run in this invocation when they become ready (./inline.ts). */
  inline?: InlineRun;
  /**
   * Runs `work` with the events it raises held and published together after it (one look-up of who
   * listens for all of them: lib/file-api/tasks/event-batch.ts). Used around a run's start and its end.
   */
  hold?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** How the run was asked for: by a message (the default), or where the task became ready (./inline.ts). */
export interface RunRequest {
  /** The task has just become ready here: claimed only if nobody queued it yet, and left alone otherwise. */
  ready?: boolean;
  /** Its inputs, as the caller has just read them (not read again). */
  inputs?: TaskRecord[];
}

/**
 * How many times a task may be handed from one engine family's function to another's before it fails:
 * two functions that disagree (a deployment under way) must not pass it back and forth for ever.
 */
export const MAX_HOPS = 3;

/** Time kept at the end of an invocation to record a task's timeout. */
const DEADLINE_MARGIN_MS = 10_000;

/**
 * The most a task's result (its file list, metadata) may take as JSON: with the arguments (at most
 * 64 KiB) and the rest of the record it stays well inside DynamoDB's 400 KB item limit.
 */
export const MAX_RESULT_BYTES = 256 * 1024;

/** Counts and hashes bytes as they pass, reporting the share of `total` done to `progress` when both are given. */
function meter(total?: number, progress?: Progress) {
  const md5 = createHash('md5');
  let size = 0;
  const report = total && total > 0 ? progress : undefined;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      md5.update(chunk);
      size += chunk.length;
      report?.(size / total!);
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ size, md5: md5.digest('hex') }) };
}

export async function runTask(taskId: string, deps: RunnerDeps, request: RunRequest = {}): Promise<void> {
  const { store, scheduler, log: baseLog } = deps;
  const hold = deps.hold ?? ((work) => work());
  const leaseSeconds = deps.leaseSeconds ?? deps.config.STEP_LEASE_SECONDS;
  // Most runs find their task waiting: claimed at once, without reading it first. Only a claim that
  // fails reads the task, to know why (held by another run, ended, its lease lapsed, gone).
  const fresh = await store.claimWaiting(taskId, leaseSeconds, { ready: request.ready });
  if (!fresh && request.ready) return;
  const task = fresh ?? (await store.getTask(taskId));
  if (!task) return;
  // The task's own secrets are hidden in every line logged for it and in every message it ends with.
  const secrets = secretValues(task.payload);
  const log = baseLog.child({ taskId, jobId: task.jobId, operation: task.operation }, { secrets });
  if (isEnded(task.status)) {
    // Delivered again after the task ended: the run that ended it may have died before scheduling
    // what follows. Doing that again is harmless (every step is conditional) and closes the gap.
    await hold(() => scheduler.afterEnd(task, true));
    return;
  }

  const run = fresh ? startRun(fresh, deps, log, request.inputs) : await claimTask(task, deps, leaseSeconds, log);
  if (!run) return;
  const { claimed, attempt, inputsRead, claimWork } = run;

  const controller = new AbortController();
  const watch = watchRun(claimed, attempt, leaseSeconds, controller, deps, log);
  const { progress } = watch;

  try {
    const implementation = deps.implementations[claimed.operation];
    if (!implementation) throw new TaskFailure('INTERNAL_ERROR', `This consumer cannot run ${claimed.operation}.`);
    const inputs = inputFiles(await inputsRead);
    const reserved = deps.billing ? await deps.billing.reserve(claimed, attempt, inputs) : {};
    if (reserved === false) {
      log.info('run stopped: the task ended before its credits were reserved');
      return;
    }
    const files = filesOf(deps, claimed);
    const used = new Set<string>();
    const ctx: OperationContext = {
      task: claimed,
      payload: claimed.payload,
      inputs,
      files,
      config: deps.config,
      log,
      signal: controller.signal,
      finalAttempt: attempt >= deps.config.STEP_MAX_ATTEMPTS,
      progress: progress.report,
      open: async (file) => (await files.get(file.key)).body,
      async save(filename, body, opts = {}) {
        // Names and folders may come from input: made safe here, once, for every operation.
        const dir = safeDir(opts.dir);
        const name = uniqueName(used, safeFilename(filename), dir);
        const key = outputKey(claimed.id, name, dir);
        if (typeof body === 'string' || Buffer.isBuffer(body)) {
          const bytes = typeof body === 'string' ? Buffer.from(body) : body;
          await files.put(key, bytes, { contentType: fileType(name, bytes, opts.contentType) });
          const md5 = createHash('md5').update(bytes).digest('hex');
          return { filename: name, size: bytes.length, md5, ...(dir ? { dir } : {}) } satisfies FileEntry;
        }
        // The type is stored with the file (lib/file-api/operations/framework/content-type.ts): a name that says nothing has the first bytes looked at.
        const { body: stream, contentType } = await typedStream(name, body as Readable, opts.contentType);
        const m = meter(opts.size, opts.progress);
        stream.on('error', (err) => m.stream.destroy(err));
        await files.put(key, stream.pipe(m.stream), { contentType, size: opts.size });
        return { filename: name, ...m.result(), ...(dir ? { dir } : {}) } satisfies FileEntry;
      },
    };
    const outcome = await log.time('task run', () => abortable(implementation(ctx), controller.signal));
    await progress.stop();
    if (isSandbox(claimed) && claimed.step === 'import') await admitSandboxImport(deps.sandboxFiles, files, claimed, outcome.result.files ?? []);
    const resultBytes = Buffer.byteLength(JSON.stringify(outcome.result));
    if (resultBytes > MAX_RESULT_BYTES) {
      const count = outcome.result.files?.length ?? 0;
      throw new TaskFailure('TOO_MANY_FILES', `The task made ${count} files; their list takes ${resultBytes} bytes, more than one task can hold (${MAX_RESULT_BYTES}). Split the work into several tasks.`);
    }
    await claimWork;
    // Settled in the same write when the task holds nothing on the balance (billing.ts).
    const settlement = deps.billing?.settlementAtFinish(claimed, reserved.reservation, outcome.credits ?? 0);
    const finished = await store.finish(claimed.id, attempt, outcome.result, {
      engine: outcome.engine ?? null,
      engineVersion: outcome.engineVersion ?? null,
      credits: outcome.credits ?? 0,
      ...settlement,
    });
    if (finished) await hold(() => Promise.all([settlement && deps.billing?.count(finished), scheduler.afterEnd(finished, false, deps.inline)]));
    else log.info('run finished after the task was taken from it; result discarded');
  } catch (caught) {
    await progress.stop();
    // The start's announcement goes before the end's. A failed job write does not matter here: a task
    // that fails is followed by a full refresh of its job, one that is retried writes it again.
    await claimWork.catch(() => {});
    const { stopReason } = watch;
    let err = caught;
    if (err instanceof RunElsewhere && stopReason === undefined) {
      const hops = deps.hops ?? 0;
      if (deps.forward && err.queue !== deps.queue && hops < MAX_HOPS) {
        // Not this function's task: the lease goes back and the family's own function takes it.
        log.info('task handed to its engine family', { queue: err.queue, reason: err.reason, hops: hops + 1 });
        await store.release(claimed.id, attempt);
        await deps.forward(claimed, err.queue, hops + 1);
        return;
      }
      err = new TaskFailure('ENGINE_UNAVAILABLE', `No function of this deployment runs this task (${err.reason}).`);
    }
    const failure = err instanceof TaskFailure ? err : controller.signal.reason instanceof TaskFailure && stopReason ? controller.signal.reason : undefined;
    if (stopReason === 'lost') {
      log.info('run stopped: the task was cancelled or taken over');
      return;
    }
    if (failure && (!failure.retryable || stopReason === 'timeout')) {
      const message = redactText(failure.message, secrets);
      log.info('task failed', { code: failure.code, message });
      const failed = await store.fail(claimed.id, { code: failure.code, message }, { attempt }, failure.result ? { result: failure.result } : {});
      if (failed) await hold(() => scheduler.afterEnd(failed));
      return;
    }
    // Retryable: give the lease back and let the queue deliver the message again (the queue's
    // consumer logs the error: it gets it with the task's secrets hidden).
    log.warn('task run failed, will be retried', { error: err });
    await store.release(claimed.id, attempt).catch(() => {});
    throw redactError(err, secrets);
  } finally {
    watch.stop();
    void progress.stop();
    await claimWork.catch(() => {});
  }
}

/**
 * Claims the task for this run, or leaves it: held by another run (looked at again when its lease runs
 * out) or claimed by one meanwhile. Starts what the claim sets off.
 */
async function claimTask(task: TaskRecord, deps: RunnerDeps, leaseSeconds: number, log: Logger) {
  const { store } = deps;
  const nowSeconds = Math.floor(Date.now() / 1000);
  if (task.status === 'processing' && (task.leaseUntil ?? 0) > nowSeconds) {
    // Another run holds the task: look again when its lease would have run out.
    const delay = Math.min(900, task.leaseUntil! - nowSeconds + 1);
    log.info('task held by another run, looking again later', { delaySeconds: delay });
    await deps.requeue(task, delay);
    return;
  }
  const claimed = await store.claim(task, leaseSeconds);
  if (!claimed) {
    log.info('task claimed by another run');
    return;
  }
  return startRun(claimed, deps, log);
}

/** What a claim sets off, beside the work; `known`: the task's inputs, when the caller has them. */
function startRun(claimed: TaskRecord, deps: RunnerDeps, log: Logger, known?: TaskRecord[]) {
  const { store, scheduler } = deps;
  const hold = deps.hold ?? ((work) => work());
  const attempt = claimed.attempt ?? 1;
  // What the claim sets off (its announcement, the job becoming processing from its first task's start)
  // goes on beside the reading of the inputs and the work, and is awaited before the run ends: the
  // task's end is announced after its start, and a task ends only once its job is processing (which
  // lets the scheduler skip re-reading the job while the job has work left, see Scheduler.afterEnd).
  // The inputs are read once, for their files and to know whether the job is processing already.
  const inputsRead = known && known.length === claimed.dependsOn.length ? Promise.resolve(known) : store.getTasks(claimed.dependsOn);
  inputsRead.catch(() => {});
  const claimWork = hold(() =>
    Promise.all([
      deps.onTaskUpdated?.(claimed).catch((err: unknown) => log.warn('task update hook failed', { error: err })),
      claimed.jobId ? inputsRead.then((inputs) => (jobProcessingAfter(claimed, inputs) ? undefined : scheduler.jobStarted(claimed.jobId!, claimed.startedAt ?? new Date().toISOString()))) : undefined,
    ]),
  );
  // Observed here so that a failure is not reported as unhandled while the run goes on; awaited below.
  claimWork.catch(() => {});
  return { claimed, attempt, inputsRead, claimWork };
}

/**
 * What watches a claimed run: its timeout (the task's, or the invocation's when that ends first), the
 * lease renewed every third of its length (a lost lease stops the run), and the task's progress.
 */
function watchRun(claimed: TaskRecord, attempt: number, leaseSeconds: number, controller: AbortController, deps: RunnerDeps, log: Logger) {
  const { store } = deps;
  const startedMs = Date.parse(claimed.startedAt ?? new Date().toISOString());
  const remainingMs = startedMs + claimed.timeoutSeconds * 1000 - Date.now();
  const invocationMs = deps.deadlineMs === undefined ? Infinity : deps.deadlineMs - DEADLINE_MARGIN_MS - Date.now();
  let stopReason: 'timeout' | 'lost' | undefined;
  const timer = setTimeout(() => {
    stopReason = 'timeout';
    const message =
      remainingMs <= invocationMs
        ? `The task timed out after ${claimed.timeoutSeconds} seconds.`
        : `The task timed out: it did not finish within the ${Math.round((Date.now() - startedMs) / 1000)} seconds its step could run.`;
    controller.abort(new TaskFailure('TIMEOUT', message));
  }, Math.max(0, Math.min(remainingMs, invocationMs)));
  const heartbeat = setInterval(() => {
    store
      .heartbeat(claimed.id, attempt, leaseSeconds)
      .then((owned) => {
        if (!owned && !controller.signal.aborted) {
          stopReason = 'lost';
          controller.abort(new TaskFailure('CANCELLED', 'The task was cancelled.'));
        }
      })
      .catch((err: unknown) => log.warn('lease renewal failed', { error: err }));
  }, (leaseSeconds * 1000) / 3);
  // The task's percent while it runs: throttled, conditional on this run, stopped before the run ends.
  const progress = progressWriter({
    log,
    write: async (percent) => {
      const written = await store.progress(claimed.id, attempt, percent);
      if (!written) return false;
      await deps.onTaskUpdated?.(written).catch((err: unknown) => log.warn('task update hook failed', { error: err }));
      return true;
    },
  });
  return {
    progress,
    /** Why the run was stopped from outside, if it was. */
    get stopReason() {
      return stopReason;
    },
    stop() {
      clearTimeout(timer);
      clearInterval(heartbeat);
    },
  };
}

/** Rejects as soon as the signal aborts, whatever the work is doing. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Whether the task's job is processing already, known from its inputs: one of them, in the same job,
 * was run and finished. A run makes its job processing before it ends its task (`claimWork` above),
 * and a processing job never goes back to waiting; so the job's start is not written again.
 */
function jobProcessingAfter(task: TaskRecord, inputs: readonly TaskRecord[]): boolean {
  return inputs.some((input) => input.jobId === task.jobId && input.status === 'finished' && input.attempt !== undefined);
}

/** The files of the task's input tasks (as read, in input order). */
function inputFiles(inputs: readonly TaskRecord[]): InputFile[] {
  const out: InputFile[] = [];
  for (const input of inputs) {
    if (input.status !== 'finished') throw new TaskFailure('INPUT_TASK_FAILED', 'Input task has failed');
    for (const file of input.result?.files ?? []) {
      out.push({ ...file, taskId: input.id, key: outputKey(input.id, file.filename, file.dir) });
    }
  }
  return out;
}
