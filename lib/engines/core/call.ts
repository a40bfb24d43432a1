/**
 * One engine call as engines see it: the input files already downloaded into a folder of the call's
 * own, the validated arguments, the engine and version chosen, where its tools run; and what it gives
 * back (files it wrote in that folder, or metadata). The task machinery that prepares a call and stores
 * its outputs is lib/file-api/operations/engine-task.ts; engines import nothing from operations.
 */
import type { Config } from '../../kernel/config.js';
import type { Logger } from '../../kernel/log.js';
import type { EngineChoice } from './registry.js';
import type { ToolPlace } from './tool.js';

/** An input file, downloaded into the call's folder. */
export interface LocalFile {
  path: string;
  filename: string;
  /** The format it is processed as (`input_format`, else its extension, else its first bytes). */
  format: string | null;
  size: number;
  taskId: string;
  /** The input task's name in its job (what `command` arguments call `/input/<name>/…`), when it has one. */
  taskName?: string;
}

/** `P`: the operation's validated arguments (its schema's output type). */
export interface EngineCall<P = unknown> {
  operation: string;
  payload: P;
  choice: EngineChoice;
  /** The files to process: one per call for per-file operations, all of them for merge. */
  inputs: LocalFile[];
  /** Other files the operation needs (the watermark image). */
  extras: LocalFile[];
  /** The call's temporary folder. */
  dir: string;
  /** The engine may fetch nothing (a sandbox task: only whitelisted files, lib/file-api/sandbox/operation-rules.ts). */
  offline?: true;
  /** Where its native tools run: in `dir`, confined to the task's work folder (which holds `dir` and the inputs). */
  tool: ToolPlace;
  signal: AbortSignal;
  config: Config;
  log: Logger;
  /**
   * How far the engine is, 0 to 1, for engines whose tools say so (FFmpeg's time, Ghostscript's pages);
   * it never waits. Absent when nobody listens (a call made by hand).
   */
  progress?: (fraction: number) => void;
  /** A path for an output file in the call's folder. */
  output(filename: string): string;
  /** Output file names: `filename` when given (`%d` numbered when there are several), else the input's name with `ext`. */
  names(ext: string, count: number): string[];
}

export interface Produced {
  path: string;
  filename: string;
  /** Its folder among the task's files (`result.files[].dir`): an archive entry's folder. */
  dir?: string;
  contentType?: string;
}

export interface EngineResult {
  files: Produced[];
  metadata?: Record<string, unknown>;
}

export type EngineHandler<P = unknown> = (call: EngineCall<P>) => Promise<EngineResult>;
