/**
 * Resolvers of the creature API. Root resolvers carry exactly the names of their fields in
 * `type Query` / `type Mutation` (checked at startup by assertRootResolvers); domain errors are
 * ApiErrors, rendered by lib/graphql/server/errors.ts.
 */
import type { CreatureCatalog, ListOptions } from './catalog.js';
import type { Messages, MessageInput } from './messages.js';
import type { CreatureRecord, Dimension } from './model.js';

export interface CreatureContext {
  catalog: CreatureCatalog;
  messages: Messages;
}

type Root = unknown;

export const Query = {
  creatures: (_: Root, args: ListOptions, { catalog }: CreatureContext) => catalog.list(args),
  creature: (_: Root, args: { name?: string | null; id?: string | null; number?: string | null }, { catalog }: CreatureContext) =>
    catalog.find(args) ?? null,
  getMessage: (_: Root, { id }: { id: string }, { messages }: CreatureContext) => messages.get(id),
};

export const Mutation = {
  createMessage: (_: Root, { input }: { input?: MessageInput | null }, { messages }: CreatureContext) =>
    messages.create(input),
  updateMessage: (_: Root, { id, input }: { id: string; input?: MessageInput | null }, { messages }: CreatureContext) =>
    messages.replace(id, input),
};

const withUnit = (value: number, unit: string) => `${value.toFixed(2)}${unit}`;

export const resolvers = {
  Query,
  Mutation,
  Creature: {
    id: (creature: CreatureRecord, _: unknown, { catalog }: CreatureContext) => catalog.idOf(creature),
    evolutions: (creature: CreatureRecord, _: unknown, { catalog }: CreatureContext) => catalog.resolve(creature.evolutions),
    previousEvolutions: (creature: CreatureRecord, _: unknown, { catalog }: CreatureContext) =>
      catalog.resolve(creature.previousEvolutions),
  },
  CreatureDimension: {
    minimum: (d: Dimension) => withUnit(d.minimum, d.unit),
    maximum: (d: Dimension) => withUnit(d.maximum, d.unit),
    minimumValue: (d: Dimension) => d.minimum,
    maximumValue: (d: Dimension) => d.maximum,
  },
};
