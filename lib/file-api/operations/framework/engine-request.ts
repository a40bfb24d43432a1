/**
 * How an operation's arguments map to the engine request the registry checks (at creation) and
 * selects for (at run time). Pure: definitions use it while they load.
 */
import type { EngineRequest } from '../../../engines/core/registry.js';

/** `undefined` formats are decided at run time (a job's input not imported yet). */
export type RequestOf = (args: Record<string, unknown>) => EngineRequest;

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v : undefined;
}

/** The usual mapping: `input_format` (unknown until the input arrives when absent), `output_format`, `engine`, `engine_version`. */
export function defaultRequest(opts: { withoutInput?: boolean } = {}): RequestOf {
  return (args) => ({
    inputFormat: text(args.input_format) ?? (opts.withoutInput ? null : undefined),
    outputFormat: text(args.output_format),
    engine: text(args.engine),
    engineVersion: args.engine_version === undefined ? undefined : String(args.engine_version),
  });
}

/** Operations whose output has the input's format (optimize, metadata): no output format to check. */
export function sameFormat(args: Record<string, unknown>): EngineRequest {
  return { ...defaultRequest()(args), outputFormat: undefined };
}
