/**
 * Engine checks as part of an operation's schema: the request is refused at creation (422, errors
 * keyed by field) when no installed engine can serve it, when the `engine` it names is unknown or not
 * installed, or when the `engine_version` it pins is not there. The messages name the choices.
 */
import type * as z from 'zod';
import { engineRegistry, type EngineRequest } from './registry.js';

/** How an operation's arguments map to an engine request; `undefined` formats are decided at run time. */
export type RequestOf = (args: Record<string, unknown>) => EngineRequest;

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);

/** The usual mapping: `input_format` (unknown until the input arrives when absent), `output_format`, `engine`, `engine_version`. */
export const defaultRequest =
  (opts: { withoutInput?: boolean } = {}): RequestOf =>
  (args) => ({
    inputFormat: str(args.input_format) ?? (opts.withoutInput ? null : undefined),
    outputFormat: str(args.output_format),
    engine: str(args.engine),
    engineVersion: args.engine_version === undefined ? undefined : String(args.engine_version),
  });

/** The schema, refined with the engine registry's verdict on each request. */
export function withEngineCheck<T extends z.ZodObject>(operation: string, schema: T, requestOf: RequestOf = defaultRequest()): T {
  return schema.superRefine((args, ctx) => {
    for (const problem of engineRegistry().check(operation, requestOf(args as Record<string, unknown>))) {
      ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
    }
  }) as T;
}
