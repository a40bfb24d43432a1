/** What an operation's implementation gets and gives. */
import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import type { FileStore } from '../files/port.js';
import type { Logger } from '../log.js';
import type { FileEntry, TaskRecord, TaskResult } from '../tasks/model.js';

/** A file produced by one of the task's input tasks. */
export interface InputFile extends FileEntry {
  /** The input task. */
  taskId: string;
  /** Where the file is stored. */
  key: string;
}

export interface OperationContext {
  task: TaskRecord;
  /** The validated arguments (`input` resolved to ids in `task.dependsOn`). */
  payload: Record<string, any>;
  inputs: InputFile[];
  files: FileStore;
  config: Config;
  log: Logger;
  /** Aborted when the task is cancelled or times out. */
  signal: AbortSignal;
  open(file: InputFile): Promise<Readable>;
  /** Stores an output file of this task, streaming, and returns its `result.files` entry. */
  save(filename: string, body: Readable | Buffer | string, opts?: { contentType?: string; dir?: string; size?: number }): Promise<FileEntry>;
}

export interface OperationOutcome {
  result: TaskResult;
  engine?: string;
  engineVersion?: string;
  credits?: number;
}

export type Implementation = (ctx: OperationContext) => Promise<OperationOutcome>;

/**
 * A failure the task reports as its `code` and `message`. Retryable failures (network trouble,
 * a 5xx from a remote) are tried again by the queue; the others end the task at once.
 */
export class TaskFailure extends Error {
  override readonly name = 'TaskFailure';
  constructor(
    readonly code: string,
    message: string,
    readonly retryable = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Where a task's output files live: derived from the task id, so a retried run overwrites its own. */
export const outputKey = (taskId: string, filename: string, dir?: string) =>
  `tasks/${taskId}/${dir ? `${dir.replace(/^\/+|\/+$/g, '')}/` : ''}${filename}`;

export const taskPrefix = (taskId: string) => `tasks/${taskId}/`;
