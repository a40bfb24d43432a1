/** An engine family's handlers, by operation and engine (see lib/engines/families.ts for which engines each family has). */
import type { EngineFamily } from '../../engines/families.js';
import type { EngineHandler } from '../engine-task.js';
import type { Implementation } from '../types.js';

export interface FamilyHandlers {
  family: EngineFamily;
  /** Operation → engine → handler. */
  engines: Readonly<Record<string, Readonly<Record<string, EngineHandler<any>>>>>;
  /** Operations that run without the engine machinery (archive). */
  implementations?: Readonly<Record<string, Implementation>>;
}
