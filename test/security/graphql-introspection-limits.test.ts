/**
 * The GraphQL limits cover introspection too (issue 25, finding 6): a deep `__schema` or `__type`
 * selection is refused before it runs, and introspection counts against the cost limit, while the
 * introspection queries of GraphiQL and standard clients (graphql-js `getIntrospectionQuery`, the
 * classic query Apollo's and older tools send) are still answered in full.
 *
 * In-process through the creature server's yoga instance (`yoga.fetch`); introspection reads no state.
 */
import { buildSchema, getIntrospectionQuery, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { typeDefs } from '#lib/graphql/creatures/schema.js';
import { createCreatureYoga } from '#lib/graphql/creatures/yoga.js';
import { costLimitRule } from '#lib/graphql/server/cost.js';
import { createLogger } from '#lib/kernel/log.js';
import type { StateStore } from '#lib/adapters/state/port.js';

const yoga = createCreatureYoga({ store: {} as StateStore, logger: createLogger({}, { write: () => {} }), responseCache: false });

async function post(query: string) {
  const res = await yoga.fetch('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return { status: res.status, body: (await res.json()) as { data?: Record<string, any> | null; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> } };
}

/** `levels` nested `field { … }` around `inner`. */
const nest = (field: string, levels: number, inner: string) => {
  let out = inner;
  for (let i = 0; i < levels; i++) out = `${field} { ${out} }`;
  return out;
};

async function refused(query: string, pattern: RegExp) {
  const { body } = await post(query);
  expect(body.data ?? undefined).toBeUndefined();
  expect(body.errors?.length).toBeGreaterThan(0);
  expect(body.errors!.map((e) => e.message).join('\n')).toMatch(pattern);
}

describe('introspection under the depth limit', () => {
  it('refuses a __schema query with a chain of ofType longer than any client asks (10: 13 deep)', async () => {
    await refused(`{ __schema { types { name ${nest('ofType', 10, 'name')} } } }`, /depth/i);
  });

  it('refuses a 12-deep __schema query through fields, types and arguments', async () => {
    await refused('{ __schema { types { fields { type { ofType { ofType { fields { args { type { ofType { ofType { name } } } } } } } } } } } }', /depth/i);
  });

  it('refuses a deep __type query', async () => {
    await refused('{ __type(name: "Query") { fields { type { ofType { fields { args { type { ofType { fields { type { name } } } } } } } } } } }', /depth/i);
  });

  it('refuses deep introspection inside a fragment', async () => {
    await refused(`query { ...Deep } fragment Deep on Query { __schema { queryType { ${nest('ofType', 10, 'name')} } } }`, /depth/i);
  });

  it('counts introspection against the cost limit', async () => {
    // The creature schema is small (its whole introspection is about 33 kB), so no operation of 15
    // aliases and 1000 tokens reaches the service's limit through introspection alone: the rule is
    // checked here with a small limit, on the same schema.
    const schema = buildSchema(typeDefs);
    const rule = costLimitRule({ maxCost: 100, listSizes: {} });
    const errors = validate(schema, parse('{ __schema { types { name fields { name type { name ofType { name } } } } } }'), [rule]);
    expect(errors.map((e) => e.message).join('\n')).toMatch(/^Query cost \d+ exceeds the limit of 100/);
    expect(validate(schema, parse('{ __type(name: "Creature") { name kind } }'), [rule])).toEqual([]);
  });
});

describe('standard introspection queries are still answered', () => {
  it.each([
    ['graphql-js getIntrospectionQuery() defaults', getIntrospectionQuery()],
    [
      "GraphiQL's (every option graphql 16 offers)",
      getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true }),
    ],
  ])('%s', async (_, query) => {
    const { body } = await post(query);
    expect(body.errors).toBeUndefined();
    expect(body.data?.__schema.queryType.name).toBe('Query');
    expect(body.data?.__schema.types.length).toBeGreaterThan(10);
  });

  it("the classic query (Apollo's and older tools: seven levels of ofType)", async () => {
    const typeRef = `kind name ${nest('ofType', 7, 'kind name').replace(/ofType \{ /g, 'ofType { kind name ').replace(/kind name kind name/g, 'kind name')}`;
    const query = `query IntrospectionQuery {
      __schema { queryType { name } mutationType { name } subscriptionType { name } types { ...FullType }
        directives { name description locations args { ...InputValue } } }
    }
    fragment FullType on __Type {
      kind name description
      fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
      inputFields { ...InputValue } interfaces { ...TypeRef }
      enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
      possibleTypes { ...TypeRef }
    }
    fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
    fragment TypeRef on __Type { ${typeRef} }`;
    const { body } = await post(query);
    expect(body.errors).toBeUndefined();
    expect(body.data?.__schema.types.some((t: { name: string }) => t.name === 'Creature')).toBe(true);
  });

  it('a shallow __type query and __typename', async () => {
    const { body } = await post('{ __typename __type(name: "Creature") { name fields { name type { name kind ofType { name } } } } }');
    expect(body.errors).toBeUndefined();
    expect(body.data?.__type.name).toBe('Creature');
  });
});
