/**
 * The engine registry of this process: the engines (lib/engines/core/catalog.ts) with what each operation
 * declares they do for it (capabilities and default order, from the definitions), built from the
 * engine settings on first use.
 */
import { engineConfig, type EngineConfig } from '../../kernel/config.js';
import { ENGINES, type EngineDescriptor } from '../../engines/core/catalog.js';
import { EngineRegistry, type EngineOffers } from '../../engines/core/registry.js';
import type { OperationDefinition } from './framework/define.js';
import { OPERATIONS } from './index.js';

/** What the operations say their engines do, in the registry's terms. */
export function engineOffers(operations: readonly OperationDefinition[] = OPERATIONS): EngineOffers {
  const offers: EngineOffers = { capabilities: [], order: {} };
  for (const op of operations) {
    if (!op.engines) continue;
    offers.order[op.name] = op.engines.order;
    for (const [engine, capabilities] of Object.entries(op.engines.capabilities)) {
      for (const capability of capabilities) offers.capabilities.push({ ...capability, operation: op.name, engine });
    }
  }
  return offers;
}

/** A registry for these settings (tests build their own; the process has one, `engineRegistry()`). */
export const newEngineRegistry = (settings: EngineConfig, descriptors: readonly EngineDescriptor[] = ENGINES, offers: EngineOffers = engineOffers()) =>
  new EngineRegistry(settings, offers, descriptors);

let shared: EngineRegistry | undefined;

/** This process's registry. */
export function engineRegistry(): EngineRegistry {
  shared ??= newEngineRegistry(engineConfig());
  return shared;
}

/** Replaces the process's registry (tests). */
export function setEngineRegistry(registry: EngineRegistry | undefined): void {
  shared = registry;
}
