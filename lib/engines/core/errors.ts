/**
 * What an engine reports when it refuses or fails an input on its own terms (a file past a limit, a
 * damaged document, a format pair it cannot make). Engines know nothing of tasks: the one place that
 * runs engine calls for tasks (lib/file-api/operations/engine-task.ts) maps an `EngineFailure` to the task's
 * `code` and `message`, as it maps a tool's `ToolError`. The message is shown to clients: it names no
 * path of this machine.
 */
export type EngineFailureCode =
  | 'INVALID_INPUT'
  | 'UNSUPPORTED_FORMAT'
  | 'FILE_TOO_LARGE'
  | 'TOO_MANY_PAGES'
  | 'CONVERSION_FAILED'
  | 'CAPTURE_FAILED'
  | 'ENGINE_UNAVAILABLE'
  | 'IMAGE_TOO_LARGE'
  | 'ENCRYPTED_INPUT'
  | 'INVALID_PASSWORD'
  | 'DOWNLOAD_FAILED'
  | 'OUTPUT_TOO_LARGE'
  | 'ARCHIVE_TOO_LARGE'
  | 'UNSAFE_ARCHIVE'
  | 'ENGINE_BUSY';

export class EngineFailure extends Error {
  override readonly name = 'EngineFailure';
  constructor(
    readonly code: EngineFailureCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable ?? false;
  }
  /** A passing trouble (a page that did not answer): the task is tried again. */
  readonly retryable: boolean;
}
