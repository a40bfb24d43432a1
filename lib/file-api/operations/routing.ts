/**
 * Which process queue a task goes to: the queue of the engine family (lib/engines/core/families.ts) whose
 * function runs the engine the registry selects for it, decided from what is known when the task is
 * queued (its arguments and its inputs' file names). The function that takes the task selects again
 * with the input's bytes at hand; both use the same capability list.
 */
import { FAMILY_QUEUES, familyOf, type EngineFamily } from '../../engines/core/families.js';
import { EngineChoiceError, type EngineRegistry } from '../../engines/core/registry.js';
import type { ProcessQueueName } from '../../adapters/queue/port.js';
import type { TaskRecord } from '../records/model.js';
import { declaredInputFormat, formatByName, runRequest, type RequestUse } from './framework/engine-request.js';
import { operationDefinition } from './index.js';

/** An operation without engines (routing never meets one): no output format to choose by. */
const NO_ENGINES: RequestUse<unknown> = { outputFormat: () => undefined };

/**
 * The process queue for `task`, whose input tasks (`inputs`) have finished. Each input file is
 * matched to the engine that would run it; when they need different families (a video watermarked
 * with a PNG) the task goes to the family that is not `image`: a watermark image is an extra that
 * every family's engine reads itself. A format known only from the file's bytes (a name without an
 * extension) counts as unknown: the operation's first engine decides.
 */
export function processQueueOf(registry: EngineRegistry, task: Pick<TaskRecord, 'operation' | 'payload'>, inputs: readonly TaskRecord[]): ProcessQueueName {
  return processQueueFor(registry, task, inputs.flatMap((t) => t.result?.files ?? []).map((f) => f.filename));
}

/** The process queue for `task` with input files of these names (what a process function knows before downloading them). */
export function processQueueFor(registry: EngineRegistry, task: Pick<TaskRecord, 'operation' | 'payload'>, filenames: readonly string[]): ProcessQueueName {
  const { payload, operation } = task;
  const use: RequestUse<Record<string, unknown>> = operationDefinition(operation)?.engines ?? NO_ENGINES;
  const formats: Array<string | null | undefined> = filenames.length ? filenames.map((name) => formatByName(payload, name)) : [declaredInputFormat(payload) ?? null];
  const families = new Set<EngineFamily>();
  for (const inputFormat of formats) {
    try {
      const family = familyOf(registry.select(operation, runRequest(use, payload, inputFormat)).engine);
      if (family) families.add(family);
    } catch (err) {
      if (!(err instanceof EngineChoiceError)) throw err;
    }
  }
  if (families.size === 0) {
    // Nothing here can run it (the run will say why), or its format is unknown: the first engine's family.
    const first = registry.available(operation)[0]?.engine;
    const family = first ? familyOf(first) : undefined;
    if (family) families.add(family);
  }
  const chosen = [...families].find((f) => f !== 'image') ?? 'image';
  return FAMILY_QUEUES[chosen];
}
