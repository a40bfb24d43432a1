/**
 * The engine check of a request, the same for every operation on engines: refused at creation (422,
 * errors keyed by field) when no installed engine can serve it, when the `engine` it names is unknown
 * or not installed, or when the `engine_version` it pins is not there. The messages name the choices.
 */
import type { OperationDefinition } from './framework/define.js';
import { defaultRequest } from './framework/engine-request.js';
import { engineRegistry } from './engines.js';

/** Problems by field (empty: an engine here can run it). Operations without engines have none. */
export function engineProblems(definition: OperationDefinition, args: Record<string, unknown>): Array<{ field: string; message: string }> {
  if (!definition.engines) return [];
  const request = (definition.engines.request ?? defaultRequest())(args);
  return engineRegistry().check(definition.name, request);
}
