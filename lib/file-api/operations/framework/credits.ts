/**
 * What a task costs, read from the operations' definitions. An operation on engines costs, for each
 * engine call it makes (one per input file, or one for all of them when its `mode` is `all`), the
 * `credits` of the engine capability that serves the call (1 unless the capability says otherwise).
 * An import or export costs its definition's `credits` (0). Nothing is charged per page or per minute,
 * so a task's cost is known when it starts, from its input files' names; only a name that does not tell
 * the format leaves it open, and then the dearest call is reserved.
 *
 * This module loads no engine: the registry it is given only answers which capability would serve.
 */
import { EngineChoiceError, type EngineRegistry } from '../../../engines/core/registry.js';
import type { TaskRecord } from '../../records/model.js';
import type { EngineCapability, OperationDefinition } from './define.js';
import type { InputFile } from './types.js';
import { formatByName, runRequest } from './engine-request.js';

const callCredits = (capability: Pick<EngineCapability, 'credits'>) => capability.credits ?? 1;

const capabilitiesOf = (definition: OperationDefinition): EngineCapability[] => Object.values(definition.engines?.capabilities ?? {}).flat();

/** The least a task of this operation can cost: a balance below it cannot pay for any such task. */
export function minimumCredits(definition: OperationDefinition): number {
  if (!definition.engines) return definition.credits ?? 0;
  return Math.min(...capabilitiesOf(definition).map(callCredits));
}

/** The most one engine call of this operation can cost. */
function dearestCall(definition: OperationDefinition): number {
  return Math.max(1, ...capabilitiesOf(definition).map(callCredits));
}

/**
 * What a task reserves when it starts: the cost of each engine call its run will make, the engine for
 * each call chosen as the run chooses it (from the input's format as its name or `input_format` gives
 * it). A call whose format the name does not tell, or that no engine here serves (the run will fail
 * and be refunded), is reserved at the dearest. So a run never costs more than its task reserved.
 */
export function reservationFor(registry: EngineRegistry, definition: OperationDefinition, task: TaskRecord, inputs: readonly InputFile[]): number {
  const use = definition.engines;
  if (!use) return definition.credits ?? 0;
  const payload = task.payload;
  const files = use.partition ? use.partition({ task, payload, inputs: [...inputs] }).files : inputs;
  // The first file of each call decides its engine, as in the run (engine-task.ts).
  const calls = use.mode === 'all' ? [files[0]] : files.length ? files : [undefined];
  let total = 0;
  for (const first of calls) {
    const inputFormat = first ? formatByName(payload, first.filename) : null;
    if (inputFormat === undefined) {
      total += dearestCall(definition);
      continue;
    }
    try {
      const choice = registry.select(definition.name, runRequest(use, payload, inputFormat));
      total += callCredits(choice.capability);
    } catch (err) {
      if (!(err instanceof EngineChoiceError)) throw err;
      total += dearestCall(definition);
    }
  }
  return total;
}
