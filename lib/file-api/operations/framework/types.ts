/** What an operation's implementation gets and gives. */
import type { Readable } from 'node:stream';
import type { Config } from '../../../kernel/config.js';
import { isSafeDir, isSafeFilename } from '../../../adapters/file-store/names.js';
import type { FileStore } from '../../../adapters/file-store/port.js';
import type { Logger } from '../../../kernel/log.js';
import type { FileEntry, TaskRecord, TaskResult } from '../../records/model.js';
import type { ProcessQueueName } from '../../../adapters/queue/port.js';
import type { Progress } from '../../records/progress.js';

/** A file produced by one of the task's input tasks. */
export interface InputFile extends FileEntry {
  /** The input task. */
  taskId: string;
  /** Where the file is stored. */
  key: string;
}

/** `P`: the operation's validated arguments (its schema's output type). */
export interface OperationContext<P = Record<string, unknown>> {
  task: TaskRecord;
  /** The validated arguments (`input` resolved to ids in `task.dependsOn`). */
  payload: P;
  inputs: InputFile[];
  files: FileStore;
  config: Config;
  log: Logger;
  /** Aborted when the task is cancelled or times out. */
  signal: AbortSignal;
  /** This run is the last its queue makes (`STEP_MAX_ATTEMPTS`): a passing failure now ends the task. */
  finalAttempt: boolean;
  /**
   * How far the run is, 0 to 1: the task's `percent` while it runs (throttled and kept rising by the
   * runner, lib/file-api/records/progress.ts). Call it as often as useful; it never waits.
   */
  progress: Progress;
  open(file: InputFile): Promise<Readable>;
  /**
   * Stores an output file of this task, streaming, and returns its `result.files` entry. With `size`
   * (the body's length, when known in advance) and `progress`, reports the share of it stored so far.
   */
  save(filename: string, body: Readable | Buffer | string, opts?: { contentType?: string; dir?: string; size?: number; progress?: Progress }): Promise<FileEntry>;
}

export interface OperationOutcome {
  result: TaskResult;
  engine?: string;
  engineVersion?: string;
  credits?: number;
}

export type Implementation<P = Record<string, unknown>> = (ctx: OperationContext<P>) => Promise<OperationOutcome>;

/**
 * A failure the task reports as its `code` and `message`. Retryable failures (network trouble,
 * a 5xx from a remote) are tried again by the queue; the others end the task at once.
 */
export class TaskFailure extends Error {
  override readonly name = 'TaskFailure';
  /** What the failed task keeps as its `result` (the sandbox refusal's files); none otherwise. */
  readonly result?: TaskResult;
  constructor(
    readonly code: string,
    message: string,
    readonly retryable = false,
    options?: { cause?: unknown; result?: TaskResult },
  ) {
    super(message, options);
    this.result = options?.result;
  }
}

/**
 * The task belongs to another engine family's process function (lib/engines/core/families.ts): its message
 * reached this one because it was queued before the capability list changed, or the input's bytes
 * showed another format than its name. The runner hands it to `queue` instead of failing it.
 */
export class RunElsewhere extends Error {
  override readonly name = 'RunElsewhere';
  constructor(
    readonly queue: ProcessQueueName,
    readonly reason: string,
  ) {
    super(`to be run from the ${queue} queue: ${reason}`);
  }
}

export const taskPrefix = (taskId: string) => `tasks/${taskId}/`;

/**
 * Where an import/upload form stores its file until the task takes it: one fixed key per task, so a
 * form can only ever write one object (the uploaded file's name travels as the object's metadata,
 * `UPLOAD_FILENAME_METADATA`).
 */
export const uploadPrefix = (taskId: string) => `uploads/${taskId}/`;
export const uploadKey = (taskId: string) => `${uploadPrefix(taskId)}file`;
/** The user metadata an upload form fills with the uploaded file's name (S3 substitutes `${filename}`). */
export const UPLOAD_FILENAME_METADATA = 'filename';

/** The task an object under the upload prefix was uploaded for, and what follows the task's prefix (the client's, unsafe). */
export function uploadTaskOf(key: string): { taskId: string; uploaded: string } | undefined {
  const match = /^uploads\/([0-9a-f-]{36})\/(.*)$/s.exec(key);
  return match ? { taskId: match[1]!, uploaded: match[2]! } : undefined;
}

/**
 * Where a task's output files live: derived from the task id, so a retried run overwrites its own.
 * The name and folder must already be safe (lib/adapters/file-store/names.ts): a key that could leave the task's
 * prefix is a bug, refused with an internal error rather than written.
 */
export function outputKey(taskId: string, filename: string, dir?: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(taskId) || !isSafeFilename(filename) || (dir !== undefined && !isSafeDir(dir))) {
    throw new TaskFailure('INTERNAL_ERROR', 'An output file name was not normalized; nothing was written.');
  }
  return `${taskPrefix(taskId)}${dir ? `${dir}/` : ''}${filename}`;
}
