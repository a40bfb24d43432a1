/**
 * The creature server's response cache and compiled execution (lib/graphql/creatures/yoga.ts): repeated
 * creature queries are answered without running again, answers holding a message never come from the
 * cache, and the compiled form answers exactly as graphql-js does. Messages live in a real (dynalite)
 * state store shared by two server instances, as two Lambda containers share the table.
 */
import { useGraphQlJit } from '@envelop/graphql-jit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatureCatalog, creatureCatalog } from '#lib/graphql/creatures/catalog.js';
import { createCreatureYoga, GRAPHQL_LIMITS, type CreatureYoga } from '#lib/graphql/creatures/yoga.js';
import { createLogger } from '#lib/kernel/log.js';
import { startStateBackend } from '../support/dynalite.js';

let backend: Awaited<ReturnType<typeof startStateBackend>>;
const logger = createLogger({}, { level: 'error', write: () => {} });

beforeAll(async () => {
  backend = await startStateBackend();
});
afterAll(async () => {
  await backend?.close();
});

/** The catalogue, counting how often the resolvers ask it for a list or a creature. */
function countingCatalog(): { catalog: CreatureCatalog; calls: () => number } {
  const catalog = new CreatureCatalog(creatureCatalog().all);
  let calls = 0;
  const list = catalog.list.bind(catalog);
  const find = catalog.find.bind(catalog);
  catalog.list = (...args) => (calls++, list(...args));
  catalog.find = (...args) => (calls++, find(...args));
  return { catalog, calls: () => calls };
}

async function post(server: CreatureYoga, query: string, variables?: Record<string, unknown>) {
  const res = await server.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { data?: any; errors?: Array<{ message: string }> };
}

const FULL_RECORD = `
  id number name classification types resistant weaknesses fleeRate maxCP maxHP
  weight { minimum maximum minimumValue maximumValue unit }
  height { minimum maximum minimumValue maximumValue unit }
  attacks { fast { name type damage } special { name type damage } }
  evolutions { id number name }
  previousEvolutions { id number name }
  evolutionRequirements { amount name }
  rarity`;

describe('response cache', () => {
  it('answers a repeated creature query from the cache, without running the resolvers again', async () => {
    const { catalog, calls } = countingCatalog();
    const yoga = createCreatureYoga({ store: backend.store, logger, catalog });
    const query = `{ creatures { ${FULL_RECORD} } }`;
    const first = await post(yoga, query);
    expect(first.errors).toBeUndefined();
    expect(first.data.creatures).toHaveLength(150);
    const afterFirst = calls();
    expect(afterFirst).toBeGreaterThan(0);
    const second = await post(yoga, query);
    expect(second).toEqual(first);
    expect(calls()).toBe(afterFirst);
  });

  it('answers GET queries (no header, as graphql-request sends them) from the same cache as POSTs', async () => {
    const { catalog, calls } = countingCatalog();
    const yoga = createCreatureYoga({ store: backend.store, logger, catalog });
    const query = 'query($n: String) { creature(name: $n) { name number } }';
    const get = async (n: string) => {
      const res = await yoga.fetch(`http://localhost/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify({ n }))}`);
      expect(res.status).toBe(200);
      return res.json();
    };
    const first = await get('Cindlet');
    expect(first).toEqual({ data: { creature: { name: 'Cindlet', number: '001' } } });
    const afterFirst = calls();
    expect(await get('Cindlet')).toEqual(first);
    expect(await post(yoga, query, { n: 'Cindlet' })).toEqual(first);
    expect(calls()).toBe(afterFirst);
    expect(await get('Pebbro')).toEqual({ data: { creature: { name: 'Pebbro', number: '013' } } });
    expect(calls()).toBe(afterFirst + 1);

    // A cached GET answer carries its cache key as ETag; revalidating with it is a 304 without a body.
    const url = `http://localhost/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify({ n: 'Cindlet' }))}`;
    const etag = (await yoga.fetch(url)).headers.get('etag');
    expect(etag).toMatch(/^[0-9a-f]{64}$/);
    const revalidated = await yoga.fetch(url, { headers: { 'if-none-match': etag! } });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
    // A message is never cached, so never revalidated either.
    const message = await yoga.fetch(`http://localhost/graphql?query=${encodeURIComponent('{ getMessage(id: "00000000000000000000") { id } }')}`);
    expect(message.headers.get('etag')).toBeNull();
  });

  it('keeps answers apart by variables and by operation', async () => {
    const yoga = createCreatureYoga({ store: backend.store, logger });
    const query = 'query One($name: String) { creature(name: $name) { name number } }';
    const a = await post(yoga, query, { name: 'Cindlet' });
    const b = await post(yoga, query, { name: creatureCatalog().all[10]!.name });
    expect(a.data.creature.name).toBe('Cindlet');
    expect(b.data.creature.name).toBe(creatureCatalog().all[10]!.name);
    expect((await post(yoga, query, { name: 'Cindlet' })).data.creature.name).toBe('Cindlet');
  });

  it('never answers a message read from the cache: a change made through another instance shows at once', async () => {
    const reader = createCreatureYoga({ store: backend.store, logger });
    const writer = createCreatureYoga({ store: backend.store, logger });
    const { id } = (await post(writer, 'mutation { createMessage(input: { content: "first", author: "ann" }) { id } }')).data.createMessage;
    const read = 'query($id: ID!) { getMessage(id: $id) { content } creature(name: "Cindlet") { name } }';
    expect((await post(reader, read, { id })).data.getMessage.content).toBe('first');
    await post(writer, 'mutation($id: ID!) { updateMessage(id: $id, input: { content: "second" }) { id } }', { id });
    expect((await post(reader, read, { id })).data.getMessage.content).toBe('second');
  });

  it('does not keep failures: a query for an unknown message is asked of the store each time', async () => {
    const reader = createCreatureYoga({ store: backend.store, logger });
    const writer = createCreatureYoga({ store: backend.store, logger });
    const missing = await post(reader, '{ creature { name } }');
    expect(missing.errors?.[0]?.message).toBeTruthy();
    const { id } = (await post(writer, 'mutation { createMessage(input: { content: "late" }) { id } }')).data.createMessage;
    expect((await post(reader, 'query($id: ID!) { getMessage(id: $id) { content } }', { id })).data.getMessage.content).toBe('late');
  });

  it(`holds at most ${GRAPHQL_LIMITS.cachedResponses} answers, the least recently used going first`, async () => {
    const { catalog, calls } = countingCatalog();
    const yoga = createCreatureYoga({ store: backend.store, logger, catalog });
    const names = catalog.all.slice(0, GRAPHQL_LIMITS.cachedResponses + 1).map((c) => c.name);
    const ask = (name: string) => post(yoga, 'query($n: String) { creature(name: $n) { name } }', { n: name });
    await ask(names[0]!);
    let before = calls();
    await ask(names[0]!);
    expect(calls()).toBe(before);
    for (const name of names.slice(1)) await ask(name);
    before = calls();
    await ask(names[0]!);
    expect(calls()).toBe(before + 1);
  });
});

describe('compiled execution (graphql-jit, not used by the function, measured by npm run bench)', () => {
  it('answers every field of every creature as graphql-js does, also behind the response cache', async () => {
    const interpreted = createCreatureYoga({ store: backend.store, logger, responseCache: false });
    const compiled = createCreatureYoga({ store: backend.store, logger, execution: useGraphQlJit(), responseCache: false });
    const both = createCreatureYoga({ store: backend.store, logger, execution: useGraphQlJit() });
    const queries = [
      `{ creatures { ${FULL_RECORD} } }`,
      `{ creatures(first: 5, type: "${creatureCatalog().typeNames[0]}") { name types evolutions { name evolutions { name } } } }`,
      '{ creature(number: "7") { name attacks { special { name damage } } } }',
    ];
    for (const query of queries) {
      const expected = await post(interpreted, query);
      expect(expected.errors).toBeUndefined();
      expect(await post(compiled, query)).toEqual(expected);
      expect(await post(both, query)).toEqual(expected);
      expect(await post(both, query)).toEqual(expected);
    }
  });

  it('still never answers a message read from the cache when compiled', async () => {
    const reader = createCreatureYoga({ store: backend.store, logger, execution: useGraphQlJit() });
    const { id } = (await post(reader, 'mutation { createMessage(input: { content: "one" }) { id } }')).data.createMessage;
    const read = 'query($id: ID!) { getMessage(id: $id) { content } }';
    expect((await post(reader, read, { id })).data.getMessage.content).toBe('one');
    await post(reader, 'mutation($id: ID!) { updateMessage(id: $id, input: { content: "two" }) { id } }', { id });
    expect((await post(reader, read, { id })).data.getMessage.content).toBe('two');
  });
});
