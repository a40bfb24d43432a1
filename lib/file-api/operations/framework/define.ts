/**
 * What an operation is, declared once in its own folder (lib/file-api/operations/<name>/operation.ts): its
 * name, the step that runs it, its arguments' schema (the payload type is the schema's output), what
 * happens when a task of it is created, and, for operations that run on engines, which engines run it
 * for which formats, in which default order, at how many credits, and how its inputs are grouped.
 *
 * A definition module imports no engine and no cloud SDK: the endpoints that validate requests and
 * answer discovery load every definition. The code that runs an operation lives beside it:
 * - `run.ts`: `implement(definition, fn)` for an import or export (loaded by the step's function);
 * - `<family>.ts`: `handlers(definition, family, { engine: handler })` for the engines of one engine
 *   family (loaded by that family's function, functions/tasks/process-<family>-step.ts).
 * The step functions list those modules in tables the compiler checks against every definition
 * (steps.ts): a missing or extra implementation does not compile.
 */
import type * as z from 'zod';
import type { Capability } from '../../../engines/core/registry.js';
import type { EngineHandler } from '../../../engines/core/call.js';
import type { ENGINE_FAMILY_OF, EngineFamily } from '../../../engines/core/families.js';
import type { Step } from '../../records/model.js';
import type { RequestOf } from './engine-request.js';
import type { Implementation, InputFile, OperationContext } from './types.js';

/** One capability of an engine for this operation (the operation is the definition's). */
export type EngineCapability = Omit<Capability, 'operation'>;

/** How an operation runs on engines (`E`: the engines' names). */
export interface EngineUse<P, E extends string = string> {
  /** Engine → what it does for this operation. Every engine named here has a handler in its family's function. */
  capabilities: { readonly [K in E]: readonly EngineCapability[] };
  /** The built-in order (the first suitable, available engine runs a task); `ENGINE_ORDER` overrides it. */
  order: readonly E[];
  /** `each`: one engine call per input file; `all`: one call with every input (merge). */
  mode: 'each' | 'all';
  /** The output format the engine is chosen for (`undefined`: whatever the engine makes of the input, e.g. the same format). */
  outputFormat(payload: P): string | undefined;
  /** Splits the input files into the ones to process and extras (default: all processed). */
  partition?(ctx: Pick<OperationContext<P>, 'task' | 'payload' | 'inputs'>): { files: InputFile[]; extras: InputFile[] };
  /** The engine's metadata fields are the task result's own (`command`: `result.output`), not `result.metadata`. */
  resultFromMetadata?: true;
  /** Runs without the per-file engine machinery (archive streams its inputs itself). */
  whole?: true;
  /** How the arguments map to an engine request (default: `input_format`, `output_format`, `engine`, `engine_version`). */
  request?: RequestOf;
}

/** What creating a task of this operation does besides storing it and queueing it. */
export type Creation =
  /** Stored and queued (when its inputs have finished). */
  | { kind: 'queued' }
  /** Waits for a file uploaded with the form it shows (`result.form`); never queued, never retried. */
  | { kind: 'upload' }
  /** Content sent with the request, stored as the task's file at creation; never retried. */
  | { kind: 'content'; field: string; decode(payload: Record<string, unknown>): { bytes: Buffer; filename: string } };

export interface OperationDefinition<N extends string = string, S extends z.ZodObject = z.ZodObject, E extends string = string, St extends Step = Step> {
  name: N;
  /** Other names the same operation answers to (the seed's neutral names). */
  aliases?: readonly string[];
  step: St;
  /** Whether `input` is required, optional or not accepted. */
  inputs: 'required' | 'optional' | 'none';
  schema: S;
  creation?: Creation;
  /**
   * Runs in the invocation that makes a task of it ready (the create endpoint, the step that ended its
   * input) instead of through its queue: only for operations that need no engine and no network and
   * run quickly (lib/file-api/tasks/inline.ts); a function: for the tasks whose arguments it accepts.
   */
  inline?: true | ((payload: Record<string, unknown>) => boolean);
  /** Its finished tasks show download URLs of their files (export/url). */
  servesDownloads?: true;
  /** Credits of a task that runs without engines (imports and exports: 0). Engine tasks: their capability's. */
  credits?: number;
  engines?: EngineUse<z.output<S>, E>;
}

/** The payload type of a definition. */
export type PayloadOf<D> = D extends OperationDefinition<string, infer S, string> ? z.output<S> : never;

/** Declares an operation, keeping its literal name and engine names in its type. */
export const defineOperation = <const N extends string, S extends z.ZodObject, const E extends string = never, const St extends Step = Step>(
  definition: OperationDefinition<N, S, E, St>,
) => definition;

/** An import's or export's implementation, bound to its definition. */
export interface StepRun<D extends OperationDefinition = OperationDefinition> {
  definition: D;
  run: Implementation<PayloadOf<D>>;
}

export const implement = <D extends OperationDefinition>(definition: D, run: Implementation<PayloadOf<D>>): StepRun<D> => ({ definition, run });

/** The engines a definition names. */
export type EnginesOf<D> = D extends OperationDefinition<string, z.ZodObject, infer E> ? E : never;

/** The engines of a family (lib/engines/core/families.ts). */
export type EnginesIn<F extends EngineFamily> = { [K in keyof typeof ENGINE_FAMILY_OF]: (typeof ENGINE_FAMILY_OF)[K] extends F ? K : never }[keyof typeof ENGINE_FAMILY_OF];

/** One engine family's share of an operation: a handler per engine of that family (or the whole implementation). */
export interface FamilyRun<D extends OperationDefinition = OperationDefinition, F extends EngineFamily = EngineFamily> {
  definition: D;
  family: F;
  handlers: Readonly<Record<string, EngineHandler<PayloadOf<D>>>>;
  /** For operations that run without the per-file machinery (`engines.whole`). */
  whole?: Implementation<PayloadOf<D>>;
  /** With `whole`: the tasks that run on the per-file machinery with `handlers` instead (archive's 7z). */
  onEngines?: (payload: PayloadOf<D>) => boolean;
}

/**
 * The handlers of one family's engines for an operation. `H`'s keys must be engines the operation
 * names; each handler takes the arguments it reads, which the operation's payload must satisfy.
 */
export const handlers = <D extends OperationDefinition, F extends EngineFamily>(
  definition: D,
  family: F,
  engineHandlers: { [E in Extract<EnginesOf<D>, EnginesIn<F>>]: EngineHandler<PayloadOf<D>> },
): FamilyRun<D, F> => ({ definition, family, handlers: engineHandlers as Readonly<Record<string, EngineHandler<PayloadOf<D>>>> });

/** The whole implementation of an operation that runs in one family's function without per-file engine calls. */
export const wholeRun = <D extends OperationDefinition, F extends EngineFamily>(
  definition: D,
  family: F,
  run: Implementation<PayloadOf<D>>,
  engines?: { handlers: Readonly<Record<string, EngineHandler<PayloadOf<D>>>>; when: (payload: PayloadOf<D>) => boolean },
): FamilyRun<D, F> => ({
  definition,
  family,
  handlers: engines?.handlers ?? {},
  whole: run,
  ...(engines ? { onEngines: engines.when } : {}),
});
