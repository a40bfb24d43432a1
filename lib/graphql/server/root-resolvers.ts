/**
 * The startup check behind "adding a query or mutation = one SDL line + one resolver": every field
 * declared on a root type (Query, Mutation, Subscription) must have a resolver of the same name, and
 * every root resolver must name a declared field. A mismatch throws at startup, naming each field.
 */
import { buildSchema, type GraphQLObjectType, type GraphQLSchema } from 'graphql';

export class RootResolverError extends Error {
  override readonly name = 'RootResolverError';
  constructor(readonly problems: string[]) {
    super(`root resolvers do not match the schema: ${problems.join('; ')}`);
  }
}

const isResolver = (value: unknown, subscription: boolean): boolean =>
  typeof value === 'function' ||
  (typeof value === 'object' &&
    value !== null &&
    (subscription ? typeof (value as { subscribe?: unknown }).subscribe === 'function' : typeof (value as { resolve?: unknown }).resolve === 'function'));

/** Throws RootResolverError listing every root field without a resolver and every resolver without a field. */
export function assertRootResolvers(schema: GraphQLSchema | string, resolvers: Readonly<Record<string, unknown>>): void {
  const built = typeof schema === 'string' ? buildSchema(schema) : schema;
  const roots: Array<[GraphQLObjectType | null | undefined, boolean]> = [
    [built.getQueryType(), false],
    [built.getMutationType(), false],
    [built.getSubscriptionType(), true],
  ];
  const problems: string[] = [];
  for (const [type, subscription] of roots) {
    if (!type) continue;
    const declared = Object.keys(type.getFields());
    const given = (resolvers[type.name] ?? {}) as Record<string, unknown>;
    for (const field of declared) {
      if (!isResolver(given[field], subscription)) {
        problems.push(`type ${type.name} declares ${field} but there is no resolver named ${type.name}.${field}`);
      }
    }
    for (const name of Object.keys(given)) {
      if (!declared.includes(name)) {
        problems.push(`resolver ${type.name}.${name} has no field named ${name} in type ${type.name}`);
      }
    }
  }
  for (const name of ['Query', 'Mutation', 'Subscription']) {
    if (resolvers[name] && !roots.some(([type]) => type?.name === name)) {
      problems.push(`resolvers.${name} is given but the schema declares no type ${name}`);
    }
  }
  if (problems.length) throw new RootResolverError(problems);
}
