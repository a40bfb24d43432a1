/**
 * Query batching and automatic persisted queries on the creature server in-process (`yoga.fetch`), at
 * the wire level: the bounds, the limits applied to each operation of a batch and to the batch as a
 * whole, and every answer of Apollo's persisted-query protocol.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatureCatalog } from '#lib/graphql/creatures/catalog.js';
import { createCreatureYoga, GRAPHQL_LIMITS, type CreatureYoga } from '#lib/graphql/creatures/yoga.js';
import { createLogger } from '#lib/kernel/log.js';
import { startStateBackend } from '../support/dynalite.js';

interface GraphQLBody {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; path?: string[]; extensions?: Record<string, unknown> }>;
}

let backend: Awaited<ReturnType<typeof startStateBackend>>;
let yoga: CreatureYoga;
const logger = createLogger({}, { level: 'error', write: () => {} });
const catalog = creatureCatalog();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  backend = await startStateBackend();
  yoga = createCreatureYoga({ store: backend.store, logger });
});
afterAll(async () => {
  await backend?.close();
});

async function send(body: unknown, server: CreatureYoga = yoga) {
  const res = await server.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const byName = (name: string) => ({ query: 'query($n: String) { creature(name: $n) { number } }', variables: { n: name } });
const numberOf = (name: string) => ({ data: { creature: { number: catalog.byName(name)!.number } } });

describe('batching', () => {
  it('answers a JSON array of operations with an array of answers, in order', async () => {
    const { status, body } = await send([byName('Cindlet'), byName('Voltkit'), byName('Pebbro')]);
    expect(status).toBe(200);
    expect(body).toEqual([numberOf('Cindlet'), numberOf('Voltkit'), numberOf('Pebbro')]);
  });

  it(`refuses more than ${GRAPHQL_LIMITS.batchOperations} operations in one request with a GraphQL error, and follows a configured bound`, async () => {
    const over = await send(Array.from({ length: GRAPHQL_LIMITS.batchOperations + 1 }, () => byName('Cindlet')));
    expect(over.status).toBe(413);
    expect(over.body.errors).toEqual([expect.objectContaining({ message: `Batching is limited to ${GRAPHQL_LIMITS.batchOperations} operations per request.` })]);
    expect((await send(Array.from({ length: GRAPHQL_LIMITS.batchOperations }, () => byName('Cindlet')))).status).toBe(200);

    const two = createCreatureYoga({ store: backend.store, logger, batchLimit: 2 });
    expect((await send([byName('Cindlet'), byName('Voltkit')], two)).body).toEqual([numberOf('Cindlet'), numberOf('Voltkit')]);
    expect((await send([byName('Cindlet'), byName('Voltkit'), byName('Pebbro')], two)).body.errors[0].message).toBe(
      'Batching is limited to 2 operations per request.',
    );
    const none = createCreatureYoga({ store: backend.store, logger, batchLimit: 0 });
    expect((await send([byName('Cindlet')], none)).body.errors[0].message).toBe('Batching is not supported.');
  });

  it('applies the depth and alias limits to each operation: the others are answered', async () => {
    let deep = 'name';
    for (let i = 0; i < 20; i++) deep = `evolutions { ${deep} }`;
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: creature(number: "${i + 1}") { name }`).join(' ');
    const { status, body } = await send([byName('Cindlet'), { query: `{ creature(name: "Cindlet") { ${deep} } }` }, { query: `{ ${aliases} }` }]);
    expect(status).toBe(200);
    expect(body[0]).toEqual(numberOf('Cindlet'));
    expect(body[1].data).toBeUndefined();
    expect(body[1].errors.map((e: { message: string }) => e.message)).toContain('Query depth limit of 8 exceeded, found 22.');
    expect(body[2].errors[0].message).toBe('Aliases limit of 15 exceeded, found 16.');
  });

  it(`bounds the cost of the whole batch by the limit of one operation (${GRAPHQL_LIMITS.maxCost}), cached answers included`, async () => {
    const all = 'id number name classification types resistant weaknesses weight { minimum maximum } height { minimum maximum } fleeRate maxCP maxHP attacks { fast { name type damage } special { name type damage } } rarity';
    const everything = { query: `{ creatures { ${all} evolutions { ${all} } previousEvolutions { ${all} } } }` };
    // One such operation is under the limit, and now in the response cache.
    const single = await send(everything);
    expect(single.body.errors).toBeUndefined();
    // Sent by its hash too, once the query is known: the hash is counted as the query it stands for.
    const hashed = { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(everything.query) } } };
    expect((await send({ ...everything, ...hashed })).body.errors).toBeUndefined();
    for (const batch of [[everything, everything, byName('Pebbro')], [byName('Pebbro'), everything, everything], [hashed, byName('Pebbro'), hashed]]) {
      const { status, body } = await send(batch);
      expect(status).toBe(200);
      const answered = body.filter((answer: GraphQLBody) => !answer.errors);
      const refused = body.filter((answer: GraphQLBody) => answer.errors);
      expect(answered).toContainEqual(numberOf('Pebbro'));
      expect(answered.filter((answer: GraphQLBody) => answer.data?.creatures)).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(refused[0].data).toBeUndefined();
      expect(refused[0].errors[0]).toMatchObject({
        message: expect.stringMatching(/^Batch cost \d+ exceeds the limit of 50000 for one request/),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', maxCost: GRAPHQL_LIMITS.maxCost },
      });
    }
  });

  it('answers each malformed element of a batch with its own error, never an unexpected one', async () => {
    const { status, body } = await send([byName('Cindlet'), 'not an operation', null, [], { query: 42 }, { query: '{ creature(' }]);
    expect(status).toBe(200);
    expect(body[0]).toEqual(numberOf('Cindlet'));
    expect(body.slice(1).map((answer: GraphQLBody) => [answer.data, answer.errors?.map((e) => e.message)])).toEqual([
      [undefined, ['Each operation is a JSON object with a query, got string.']],
      [undefined, ['Each operation is a JSON object with a query, got null.']],
      [undefined, ['Each operation is a JSON object with a query, got an array.']],
      [undefined, ['Expected "query" param to be a string, but given number.']],
      [undefined, ['Syntax Error: Expected Name, found <EOF>.']],
    ]);
  });
});

describe('automatic persisted queries', () => {
  const persisted = (hash: string, version: unknown = 1) => ({ persistedQuery: { version, sha256Hash: hash } });
  const get = (params: Record<string, unknown>) =>
    yoga.fetch(
      `http://localhost/graphql?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))}`,
    );

  it('answers an unknown hash with PersistedQueryNotFound, then runs and keeps the query sent with it', async () => {
    const query = 'query Apq($n: String) { creature(number: $n) { name } }';
    const hash = sha256(query);
    const miss = await send({ variables: { n: '7' }, extensions: persisted(hash) });
    expect(miss.body.data).toBeUndefined();
    expect(miss.body.errors).toEqual([expect.objectContaining({ message: 'PersistedQueryNotFound', extensions: expect.objectContaining({ code: 'PERSISTED_QUERY_NOT_FOUND' }) })]);

    const full = await send({ query, variables: { n: '7' }, extensions: persisted(hash) });
    expect(full.body).toEqual({ data: { creature: { name: catalog.byNumber('007')!.name } } });
    const hashed = await send({ variables: { n: '8' }, extensions: persisted(hash) });
    expect(hashed.body).toEqual({ data: { creature: { name: catalog.byNumber('008')!.name } } });
    const overGet = await get({ variables: { n: '9' }, extensions: persisted(hash) });
    expect(overGet.status).toBe(200);
    expect(await overGet.json()).toEqual({ data: { creature: { name: catalog.byNumber('009')!.name } } });
  });

  it('refuses a query sent with a hash that is not its own, and keeps nothing', async () => {
    const query = '{ creature(number: "11") { name } }';
    const wrong = sha256('{ creature(number: "12") { name } }');
    const { status, body } = await send({ query, extensions: persisted(wrong) });
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors[0]).toMatchObject({ message: 'extensions.persistedQuery.sha256Hash: not the SHA-256 of the query sent', extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH' } });
    expect((await send({ extensions: persisted(wrong) })).body.errors[0].message).toBe('PersistedQueryNotFound');
  });

  it('refuses a malformed persistedQuery naming the field', async () => {
    const hash = sha256('{ creatures { name } }');
    for (const [extensions, message] of [
      [persisted(hash, 2), 'extensions.persistedQuery.version: only 1 is supported, got 2'],
      [persisted('abc'), 'extensions.persistedQuery.sha256Hash: 64 hexadecimal digits, got "abc"'],
      [persisted(hash.replace(/./, 'g')), 'extensions.persistedQuery.sha256Hash: 64 hexadecimal digits, got "'],
      [{ persistedQuery: 'x' }, 'extensions.persistedQuery: an object with version and sha256Hash'],
      [{ persistedQuery: { version: 1, sha256Hash: 7 } }, 'extensions.persistedQuery.sha256Hash: 64 hexadecimal digits, got 7'],
      [{ persistedQuery: { sha256Hash: hash } }, 'extensions.persistedQuery.version: only 1 is supported, got none'],
      [persisted('f'.repeat(5000)), `extensions.persistedQuery.sha256Hash: 64 hexadecimal digits, got "${'f'.repeat(79)}…`],
    ] as const) {
      const { status, body } = await send({ extensions });
      expect(status, message).toBe(400);
      expect(body.errors[0].message, message).toContain(message);
      expect(body.errors[0].extensions.code, message).toBe('BAD_REQUEST');
    }
  });

  it('never runs a persisted mutation over GET', async () => {
    const mutation = 'mutation { createMessage(input: { content: "persisted" }) { content } }';
    const hash = sha256(mutation);
    expect((await send({ query: mutation, extensions: persisted(hash) })).body).toEqual({ data: { createMessage: { content: 'persisted' } } });
    const res = await get({ extensions: persisted(hash) });
    expect(res.status).toBe(405);
    expect(((await res.json()) as GraphQLBody).errors?.[0]?.message).toBe('Can only perform a mutation operation from a POST request.');
  });

  it(`keeps queries of at most ${GRAPHQL_LIMITS.persistedQueryLength} characters, runs longer ones without keeping them`, async () => {
    const base = '{ creature(number: "1") { name } }';
    const long = `${base}\n#${'x'.repeat(GRAPHQL_LIMITS.persistedQueryLength - base.length)}`;
    expect(long.length).toBe(GRAPHQL_LIMITS.persistedQueryLength + 2);
    expect((await send({ query: long, extensions: persisted(sha256(long)) })).body).toEqual({ data: { creature: { name: 'Cindlet' } } });
    expect((await send({ extensions: persisted(sha256(long)) })).body.errors[0].message).toBe('PersistedQueryNotFound');
    const fits = long.slice(0, GRAPHQL_LIMITS.persistedQueryLength);
    await send({ query: fits, extensions: persisted(sha256(fits)) });
    expect((await send({ extensions: persisted(sha256(fits)) })).body).toEqual({ data: { creature: { name: 'Cindlet' } } });
  });

  it(`keeps at most ${GRAPHQL_LIMITS.persistedQueries} queries per instance, the least recently used going first`, async () => {
    const server = createCreatureYoga({ store: backend.store, logger, responseCache: false });
    const query = (i: number) => `{ creature(number: "${(i % 150) + 1}") { name } } # ${i}`;
    const keep = (i: number) => send({ query: query(i), extensions: persisted(sha256(query(i))) }, server);
    const ask = async (i: number) => (await send({ extensions: persisted(sha256(query(i))) }, server)).body;
    for (let i = 0; i < GRAPHQL_LIMITS.persistedQueries; i++) await keep(i);
    expect(await ask(0)).toEqual({ data: { creature: { name: 'Cindlet' } } }); // 0 is now the most recently used
    await keep(GRAPHQL_LIMITS.persistedQueries);
    expect((await ask(1)).errors[0].message).toBe('PersistedQueryNotFound');
    expect((await ask(0)).data).toBeTruthy();
    expect((await ask(GRAPHQL_LIMITS.persistedQueries)).data).toBeTruthy();
  });

  it('answers each operation of a batch by its own hash', async () => {
    const query = '{ creature(number: "21") { name } }';
    await send({ query, extensions: persisted(sha256(query)) });
    const { body } = await send([{ extensions: persisted(sha256(query)) }, { extensions: persisted(sha256('{ unknown }')) }, byName('Pebbro')]);
    expect(body[0]).toEqual({ data: { creature: { name: catalog.byNumber('021')!.name } } });
    expect(body[1].errors[0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
    expect(body[2]).toEqual(numberOf('Pebbro'));
  });
});
