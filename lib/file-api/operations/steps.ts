/**
 * The tables the step functions run tasks from, checked by the compiler against every definition
 * (index.ts):
 * - `stepTable('import', [...])` and `stepTable('export', [...])` take exactly one `implement(...)` per
 *   operation of that step: one missing, or one of another step, does not compile;
 * - `familyTable('pdf', [...])` takes exactly one `handlers(...)` per operation that names an engine
 *   of that family, each with exactly that family's engines (define.ts).
 * Aliases are bound to their operation's implementation here, so no other code knows them.
 */
import { engineRegistry } from './engines.js';
import { engineOperation } from './engine-task.js';
import type { EngineHandler } from '../../engines/core/call.js';
import type { EnginesIn, EnginesOf, FamilyRun, OperationDefinition, StepRun } from './framework/define.js';
import type { EngineFamily } from '../../engines/core/families.js';
import { processQueueFor } from './routing.js';
import type { Step } from '../records/model.js';
import { OPERATIONS, type AnyOperation } from './index.js';
import { RunElsewhere, type Implementation, type OperationContext } from './framework/types.js';

/** A table of implementations by operation name and alias, as the runner takes it. */
export type ImplementationTable = Readonly<Record<string, Implementation>>;

type NamesOfStep<S extends Step> = Extract<AnyOperation, { step: S }>['name'];
type Covered<R extends readonly { definition: { name: string } }[]> = R[number]['definition']['name'];
/** Compiles only when nothing is missing; otherwise names what is. */
type Complete<Missing extends string> = [Missing] extends [never] ? unknown : { missing: Missing };

/** Any definition's implementation, callable with the runner's context (its payload was validated by that definition's schema). */
const callable = (run: Implementation<never>): Implementation => run as unknown as Implementation;

function bind(out: Record<string, Implementation>, name: string, run: Implementation): void {
  const definition = OPERATIONS.find((d) => d.name === name)!;
  for (const alias of [name, ...(('aliases' in definition && definition.aliases) || [])]) out[alias] = run;
}

/** The import or export step's implementations. */
export function stepTable<S extends 'import' | 'export', const R extends readonly { definition: Extract<AnyOperation, { step: S }> }[]>(
  _step: S,
  runs: R & Complete<Exclude<NamesOfStep<S>, Covered<R>>>,
): ImplementationTable {
  const out: Record<string, Implementation> = {};
  for (const { definition, run } of runs as unknown as readonly StepRun[]) bind(out, definition.name, callable(run as Implementation<never>));
  return out;
}

/** The operations that name an engine of family `F`. */
type OperationsOf<F extends EngineFamily> = AnyOperation extends infer D ? (D extends AnyOperation ? ([Extract<EnginesOf<D>, EnginesIn<F>>] extends [never] ? never : D['name']) : never) : never;

/** Every process operation: the ones another family runs are handed to that family's queue when they reach this one. */
const PROCESS_OPERATIONS = OPERATIONS.filter((d) => d.step === 'process');

/**
 * A family's process function's implementations: its handlers, and for every other process operation
 * (or engine) a hand-over to the family that runs it (a message queued before the capability list
 * changed).
 */
export function familyTable<F extends EngineFamily, const R extends readonly { definition: AnyOperation; family: F }[]>(
  family: F,
  runs: R & Complete<Exclude<OperationsOf<F>, Covered<R>>>,
): ImplementationTable {
  const out: Record<string, Implementation> = {};
  for (const run of runs as unknown as readonly FamilyRun[]) {
    const { definition } = run;
    bind(out, definition.name, callable(implementationOf(definition, run.handlers, run.whole, run.onEngines) as Implementation<never>));
  }
  for (const definition of PROCESS_OPERATIONS) {
    if (out[definition.name]) continue;
    bind(out, definition.name, async (ctx: OperationContext) => {
      const queue = processQueueFor(engineRegistry(), ctx.task, ctx.inputs.map((f) => f.filename));
      throw new RunElsewhere(queue, `${definition.name} does not run on the ${family} engines`);
    });
  }
  return out;
}

/**
 * One table with every family's handlers merged per operation: a process that has every engine (the
 * engine tests' harness) runs any process task without handing it over.
 */
export function mergedFamilyTable(runs: readonly { definition: AnyOperation; family: EngineFamily }[]): ImplementationTable {
  type Entry = { definition: OperationDefinition; handlers: Record<string, EngineHandler<never>>; whole?: Implementation<never>; onEngines?: (payload: never) => boolean };
  const byOperation = new Map<string, Entry>();
  for (const run of runs as unknown as readonly FamilyRun[]) {
    const entry = byOperation.get(run.definition.name) ?? { definition: run.definition, handlers: {} };
    Object.assign(entry.handlers, run.handlers);
    entry.whole ??= run.whole as Implementation<never> | undefined;
    entry.onEngines ??= run.onEngines;
    byOperation.set(run.definition.name, entry);
  }
  const out: Record<string, Implementation> = {};
  for (const { definition, handlers, whole, onEngines } of byOperation.values()) {
    bind(out, definition.name, callable(implementationOf(definition, handlers, whole, onEngines) as Implementation<never>));
  }
  return out;
}

/** An operation's implementation: its handlers on the per-file machinery, or its whole run (which may hand some tasks to the handlers). */
function implementationOf(
  definition: OperationDefinition,
  handlers: Readonly<Record<string, EngineHandler<never>>>,
  whole: Implementation<never> | undefined,
  onEngines: ((payload: never) => boolean) | undefined,
): Implementation<never> {
  if (!whole) return engineOperation(definition, handlers) as Implementation<never>;
  if (!onEngines) return whole;
  const engines = engineOperation(definition, handlers) as Implementation<never>;
  return (ctx) => (onEngines(ctx.payload) ? engines(ctx) : whole(ctx));
}
