import type * as Resolvers from '#lib/graphql/creatures/resolvers.js';
import {
  buildSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql';
import { describe, expect, it, vi } from 'vitest';
import { resolvers } from '#lib/graphql/creatures/resolvers.js';
import { typeDefs } from '#lib/graphql/creatures/schema.js';
import { RootResolverError, assertRootResolvers } from '#lib/graphql/server/root-resolvers.js';

describe('root resolvers', () => {
  it('match the schema: every Query and Mutation field has a resolver of the same name', () => {
    expect(() => assertRootResolvers(typeDefs, resolvers)).not.toThrow();
    const schema = buildSchema(typeDefs);
    expect(Object.keys(resolvers.Query).sort()).toEqual(Object.keys(schema.getQueryType()?.getFields() ?? {}).sort());
    expect(Object.keys(resolvers.Mutation).sort()).toEqual(Object.keys(schema.getMutationType()?.getFields() ?? {}).sort());
  });

  it('fail the startup check, naming the field, when a declared root field has no resolver', () => {
    const extended = `${typeDefs}\nextend type Query { creatureCount: Int }\nextend type Mutation { deleteMessage(id: ID!): Boolean }`;
    let error: unknown;
    try {
      assertRootResolvers(extended, resolvers);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RootResolverError);
    expect((error as RootResolverError).problems).toEqual([
      'type Query declares creatureCount but there is no resolver named Query.creatureCount',
      'type Mutation declares deleteMessage but there is no resolver named Mutation.deleteMessage',
    ]);
  });

  it('fail the startup check when a resolver is named after no field (a typo or a removed field)', () => {
    const withTypo = { ...resolvers, Query: { ...resolvers.Query, creaturs: () => [] } };
    expect(() => assertRootResolvers(typeDefs, withTypo)).toThrow(/resolver Query\.creaturs has no field named creaturs/);
  });

  it('are checked when the server is built, so a function with a missing resolver fails at cold start', async () => {
    vi.resetModules();
    vi.doMock('#lib/graphql/creatures/resolvers.js', async (importOriginal) => {
      const real = await importOriginal<typeof Resolvers>();
      const { getMessage: _dropped, ...Query } = real.Query;
      return { ...real, resolvers: { ...real.resolvers, Query } };
    });
    try {
      const { createCreatureYoga } = await import('#lib/graphql/creatures/yoga.js');
      expect(() => createCreatureYoga({ store: {} as never })).toThrow(/type Query declares getMessage but there is no resolver named Query\.getMessage/);
    } finally {
      vi.doUnmock('#lib/graphql/creatures/resolvers.js');
      vi.resetModules();
    }
  });

  it('accept a new query once it has both its SDL line and its resolver', () => {
    const extended = `${typeDefs}\nextend type Query { creatureCount: Int }`;
    const withResolver = { ...resolvers, Query: { ...resolvers.Query, creatureCount: () => 150 } };
    expect(() => assertRootResolvers(extended, withResolver)).not.toThrow();
  });
});

describe('the schema', () => {
  const schema = buildSchema(typeDefs);

  it('keeps the names clients already use: creatures, creature(name:), the Message operations', () => {
    const query = schema.getQueryType()?.getFields() ?? {};
    expect(query.creatures?.type.toString()).toBe('[Creature!]!');
    expect(query.creature?.args.map((a) => a.name)).toContain('name');
    expect(query.getMessage?.args.map((a) => `${a.name}: ${a.type.toString()}`)).toEqual(['id: ID!']);
    const mutation = schema.getMutationType()?.getFields() ?? {};
    expect(mutation.createMessage?.args.map((a) => `${a.name}: ${a.type.toString()}`)).toEqual(['input: MessageInput']);
    expect(mutation.updateMessage?.args.map((a) => `${a.name}: ${a.type.toString()}`)).toEqual(['id: ID!', 'input: MessageInput']);
    const creature = schema.getType('Creature');
    expect(isObjectType(creature) && Object.keys(creature.getFields())).toEqual(
      expect.arrayContaining([
        'id', 'number', 'name', 'classification', 'types', 'resistant', 'weaknesses', 'weight', 'height', 'fleeRate',
        'maxCP', 'maxHP', 'attacks', 'evolutions', 'evolutionRequirements', 'previousEvolutions',
      ]),
    );
  });

  it('describes every type, field, argument, input field and enum value (the docs panel shows them)', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
      if (!type.description?.trim()) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description?.trim()) missing.push(`${type.name}.${field.name}`);
          for (const arg of field.args) if (!arg.description?.trim()) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
      if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) if (!field.description?.trim()) missing.push(`${type.name}.${field.name}`);
      }
      if (isEnumType(type)) {
        for (const value of type.getValues()) if (!value.description?.trim()) missing.push(`${type.name}.${value.name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
