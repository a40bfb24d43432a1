/**
 * The operations that run on engines (their shapes: how inputs are grouped, which output format the
 * engine is chosen for) and how a process function assembles its implementations from the handlers of
 * the engine families it has (operations/families/). Imports no engine.
 */
import { engineRegistry } from '../engines/registry.js';
import { processQueueFor } from '../tasks/routing.js';
import { captureWebsiteShape } from './capture-website.js';
import { convertShape } from './convert.js';
import { engineOperation, type EngineHandler, type EngineOperationShape } from './engine-task.js';
import type { FamilyHandlers } from './families/types.js';
import { mergeShape } from './merge.js';
import { metadataShape } from './metadata.js';
import { metadataWriteShape } from './metadata-write.js';
import { optimizeShape } from './optimize.js';
import { thumbnailShape } from './thumbnail.js';
import { RunElsewhere, type Implementation } from './types.js';
import { watermarkShape } from './watermark.js';

/** The operations that run on engines, by name. */
export const ENGINE_OPERATIONS: Readonly<Record<string, EngineOperationShape>> = Object.fromEntries(
  [convertShape, thumbnailShape, watermarkShape, captureWebsiteShape, optimizeShape, metadataShape, metadataWriteShape, mergeShape].map((s) => [s.operation, s]),
);

/** Process operations that run without the engine machinery, in the family that has them (archive: image). */
const FAMILY_IMPLEMENTATIONS = ['archive'];

/** The operations one or more families can run, each with those families' engine handlers. */
export function familyImplementations(...families: FamilyHandlers[]): Record<string, Implementation> {
  const handlers: Record<string, Record<string, EngineHandler>> = {};
  const out: Record<string, Implementation> = {};
  for (const family of families) {
    for (const [operation, engines] of Object.entries(family.engines)) {
      if (!ENGINE_OPERATIONS[operation]) throw new Error(`the ${family.family} family has handlers for ${operation}, which is not an engine operation`);
      handlers[operation] = { ...handlers[operation], ...engines };
    }
    Object.assign(out, family.implementations);
  }
  for (const [operation, engines] of Object.entries(handlers)) out[operation] = engineOperation({ ...ENGINE_OPERATIONS[operation]!, handlers: engines });
  // The process operations these families do not run: a task that reaches them anyway (a stale message)
  // is handed to the function of the family that runs it (lib/tasks/runner.ts), never failed here.
  for (const operation of [...Object.keys(ENGINE_OPERATIONS), ...FAMILY_IMPLEMENTATIONS]) {
    out[operation] ??= async (ctx) => {
      const queue = processQueueFor(engineRegistry(), ctx.task, ctx.inputs.map((f) => f.filename));
      throw new RunElsewhere(queue, `${operation} does not run on the ${families.map((f) => f.family).join(', ')} engines`);
    };
  }
  return out;
}
