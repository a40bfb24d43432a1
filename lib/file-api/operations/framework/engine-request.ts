/**
 * The one mapping of a task's arguments to what the engine registry is asked: at creation (the check,
 * a job's input formats not known yet), when the task is queued (which family's queue, from its input
 * files' names: routing.ts), when its cost is reserved (credits.ts) and when it runs (engine-task.ts,
 * again once the input's bytes are read). All read the engine, its version, the declared input format
 * and the output format here, so a task is routed, charged and run by the same choice. Pure:
 * definitions use it while they load.
 */
import { formatOfFilename, normalizeFormat } from '../../../engines/core/formats.js';
import type { EngineRequest } from '../../../engines/core/registry.js';

/** `undefined` formats are decided at run time (a job's input not imported yet). */
export type RequestOf = (args: Record<string, unknown>) => EngineRequest;

/** What of an operation's engine use the mapping reads (its definition's `engines`). */
export interface RequestUse<P = never> {
  /** The output format the engine is chosen for at run time. */
  outputFormat(payload: P): string | undefined;
}

/** An argument as text: absent when it is not a string or only blanks. */
function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v : undefined;
}

/** The engine and version the arguments name (`engine`, `engine_version`); a blank `engine` names none. */
export function namedEngine(args: Record<string, unknown>): Pick<EngineRequest, 'engine' | 'engineVersion'> {
  return {
    engine: text(args.engine),
    engineVersion: args.engine_version === undefined ? undefined : String(args.engine_version),
  };
}

/** The input format the arguments declare (`input_format`, normalized): it overrides what a file's name says. */
export function declaredInputFormat(args: Record<string, unknown>): string | undefined {
  const declared = text(args.input_format);
  return declared && normalizeFormat(declared);
}

/** An input file's format as known before its bytes are read: declared, else its name's; `undefined` when only its bytes can tell. */
export function formatByName(args: Record<string, unknown>, filename: string): string | undefined {
  return declaredInputFormat(args) ?? formatOfFilename(filename);
}

/** The usual mapping at creation: `input_format` (unknown until the input arrives when absent), `output_format`, `engine`, `engine_version`. */
export function defaultRequest(opts: { withoutInput?: boolean } = {}): RequestOf {
  return (args) => ({
    inputFormat: text(args.input_format) ?? (opts.withoutInput ? null : undefined),
    outputFormat: text(args.output_format),
    ...namedEngine(args),
  });
}

/** Operations whose output has the input's format (optimize, metadata): no output format to check. */
export function sameFormat(args: Record<string, unknown>): EngineRequest {
  return { ...defaultRequest()(args), outputFormat: undefined };
}

/** The request an engine is chosen by for one input of `inputFormat` (`null`: no input) once the task runs or is queued. */
export function runRequest<P>(use: RequestUse<P>, payload: P & Record<string, unknown>, inputFormat: string | null | undefined): EngineRequest {
  return { inputFormat, outputFormat: use.outputFormat(payload), ...namedEngine(payload) };
}
