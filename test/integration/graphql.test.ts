/**
 * The creature GraphQL server in-process (`yoga.fetch`), with messages kept in a real (dynalite)
 * state store.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatureCatalog } from '#lib/graphql/creatures/catalog.js';
import { createCreatureYoga, type CreatureYoga } from '#lib/graphql/creatures/yoga.js';
import { createLogger } from '#lib/kernel/log.js';
import type { StateStore } from '#lib/adapters/state/port.js';
import { startStateBackend } from '../support/dynalite.js';

type Backend = Awaited<ReturnType<typeof startStateBackend>>;
interface GraphQLBody {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; path?: string[]; extensions?: Record<string, unknown> }>;
}

let backend: Backend;
let yoga: CreatureYoga;
const logLines: string[] = [];
const quietLogger = createLogger({}, { level: 'info', write: (line) => logLines.push(line) });

beforeAll(async () => {
  backend = await startStateBackend();
  yoga = createCreatureYoga({ store: backend.store, logger: quietLogger });
});
afterAll(async () => {
  await backend?.close();
});

async function post(query: string, variables?: Record<string, unknown>, server: CreatureYoga = yoga) {
  const res = await server.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as GraphQLBody };
}

const catalog = creatureCatalog();

describe('creatures', () => {
  it('lists all 150 creatures with id and name (the curl in the issue)', async () => {
    const { status, body } = await post('{ creatures { id name } }');
    expect(status).toBe(200);
    const creatures = body.data?.creatures as Array<{ id: string; name: string }>;
    expect(creatures).toHaveLength(150);
    expect(new Set(creatures.map((c) => c.id)).size).toBe(150);
    expect(creatures[0]).toEqual({ id: catalog.idOf(catalog.all[0]!), name: 'Cindlet' });
  });

  it('returns a creature by name with weight, attacks and every later evolution', async () => {
    const { body } = await post(`{
      creature(name: "Cindlet") {
        number name types
        weight { minimum maximum minimumValue maximumValue unit }
        attacks { fast { name type damage } special { name type damage } }
        evolutions { name number attacks { special { name damage } } }
        evolutionRequirements { amount name }
      }
    }`);
    const record = catalog.byName('Cindlet')!;
    expect(body.errors).toBeUndefined();
    expect(body.data?.creature).toEqual({
      number: '001',
      name: 'Cindlet',
      types: ['Ember'],
      weight: {
        minimum: `${record.weight.minimum.toFixed(2)}kg`,
        maximum: `${record.weight.maximum.toFixed(2)}kg`,
        minimumValue: record.weight.minimum,
        maximumValue: record.weight.maximum,
        unit: 'kg',
      },
      attacks: record.attacks,
      evolutions: [
        { name: 'Cindrax', number: '002', attacks: { special: catalog.byNumber('002')!.attacks.special.map(({ name, damage }) => ({ name, damage })) } },
        { name: 'Cindrathor', number: '003', attacks: { special: catalog.byNumber('003')!.attacks.special.map(({ name, damage }) => ({ name, damage })) } },
      ],
      evolutionRequirements: { amount: 25, name: 'Cindlet shards' },
    });
    for (const attack of [...body.data!.creature.attacks.fast, ...body.data!.creature.attacks.special]) {
      expect(attack).toEqual({ name: expect.any(String), type: expect.any(String), damage: expect.any(Number) });
    }
  });

  it('matches names case-insensitively and returns null for an unknown name', async () => {
    const { body } = await post('{ a: creature(name: "cINDrax") { number } b: creature(name: "Nobodymon") { number } }');
    expect(body).toEqual({ data: { a: { number: '002' }, b: null } });
  });

  it('finds creatures by number and id too, and follows branching chains both ways', async () => {
    const { body } = await post(`{
      byNumber: creature(number: "10") { name evolutions { name types } evolutionRequirements { amount } }
      final: creature(name: "voltrune") { previousEvolutions { name } evolutions { name } evolutionRequirements { amount } }
    }`);
    expect(body.data?.byNumber).toEqual({
      name: 'Voltkit',
      evolutions: [
        { name: 'Voltrune', types: ['Volt', 'Mind'] },
        { name: 'Voltanvil', types: ['Volt', 'Iron'] },
      ],
      evolutionRequirements: { amount: 50 },
    });
    expect(body.data?.final).toEqual({ previousEvolutions: [{ name: 'Voltkit' }], evolutions: [], evolutionRequirements: null });
    const id = catalog.idOf(catalog.byName('Mossgrove')!);
    expect((await post('query($id: ID) { creature(id: $id) { name } }', { id })).body.data?.creature).toEqual({ name: 'Mossgrove' });
  });

  it('asks for an argument when creature() gets none', async () => {
    const { body } = await post('{ creature { name } }');
    expect(body.data?.creature).toBeNull();
    expect(body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/^creature needs an argument/), extensions: { code: 'INVALID_ARGUMENT' } });
  });

  it('pages with first/after, filters by type and clamps a huge first to 150', async () => {
    const page1 = (await post('{ creatures(first: 2) { id number } }')).body.data?.creatures as Array<{ id: string; number: string }>;
    const page2 = (await post('query($after: String) { creatures(first: 2, after: $after) { number } }', { after: page1[1]!.id })).body
      .data?.creatures;
    expect(page2).toEqual([{ number: '003' }, { number: '004' }]);
    const frost = (await post('{ creatures(type: "frost") { types } }')).body.data?.creatures as Array<{ types: string[] }>;
    expect(frost.length).toBeGreaterThan(0);
    expect(frost.every((c) => c.types.includes('Frost'))).toBe(true);
    const huge = await post('{ creatures(first: 2000000000) { number attacks { special { name } } } }');
    expect(huge.body.errors).toBeUndefined();
    expect(huge.body.data?.creatures).toHaveLength(150);
    const negative = await post('{ creatures(first: -3) { number } }');
    expect(negative.body.errors?.[0]?.message).toBe('first must be between 0 and 150, got -3');
  });

  it('answers the benchmark query: all 150 with attacks and evolutions', async () => {
    const { graphqlScenario } = await import('../../bench/graphql.js');
    const scenario = await graphqlScenario();
    const res = await yoga.fetch(`http://localhost${scenario.path}`, { method: scenario.method, headers: scenario.headers, body: scenario.body });
    expect(res.status).toBe(200);
    expect(scenario.check(await res.text())).toBe(true);
  });
});

describe('messages', () => {
  it('creates a message and reads it back through another server instance sharing the store (a restart)', async () => {
    const created = await post('mutation { createMessage(input: { content: "hello", author: "ann" }) { id content author } }');
    const message = created.body.data?.createMessage as { id: string };
    expect(message).toEqual({ id: expect.stringMatching(/^[0-9a-f]{20}$/), content: 'hello', author: 'ann' });

    const restarted = createCreatureYoga({ store: backend.store, logger: quietLogger });
    const read = await post('query($id: ID!) { getMessage(id: $id) { id content author } }', { id: message.id }, restarted);
    expect(read.body).toEqual({ data: { getMessage: message } });

    // Kept as one item per message in the state store.
    expect(await backend.store.get({ pk: `message#${message.id}`, sk: 'message' })).toMatchObject({ content: 'hello', author: 'ann' });
  });

  it('gives every message its own random id', async () => {
    const ids = await Promise.all([1, 2, 3].map(async () => (await post('mutation { createMessage(input: {}) { id } }')).body.data?.createMessage.id));
    expect(new Set(ids).size).toBe(3);
  });

  it('replaces the whole record on update: a field left out becomes null', async () => {
    const { id } = (await post('mutation { createMessage(input: { content: "draft", author: "bo" }) { id } }')).body.data!.createMessage;
    const updated = await post('mutation($id: ID!) { updateMessage(id: $id, input: { content: "final" }) { id content author } }', { id });
    expect(updated.body).toEqual({ data: { updateMessage: { id, content: 'final', author: null } } });
    const read = await post('query($id: ID!) { getMessage(id: $id) { content author } }', { id });
    expect(read.body.data?.getMessage).toEqual({ content: 'final', author: null });
  });

  it('treats a missing input as an empty message', async () => {
    const { body } = await post('mutation { createMessage { id content author } }');
    expect(body.data?.createMessage).toMatchObject({ content: null, author: null });
  });

  it('reports an unknown id on update and read as "no message exists with id <id>", not as an unexpected error', async () => {
    for (const [query, field] of [
      ['mutation { updateMessage(id: "00000000000000000000", input: { content: "x" }) { id } }', 'updateMessage'],
      ['{ getMessage(id: "00000000000000000000") { id } }', 'getMessage'],
      ['{ getMessage(id: "not-even-hex") { id } }', 'getMessage'],
    ] as const) {
      const { status, body } = await post(query);
      expect(status).toBe(200);
      expect(body.data).toEqual({ [field]: null });
      const id = /id: "([^"]+)"/.exec(query)![1];
      expect(body.errors).toEqual([expect.objectContaining({ message: `no message exists with id ${id}`, path: [field], extensions: { code: 'NOT_FOUND' } })]);
    }
  });

  it('refuses an oversized message and names the field', async () => {
    const { body } = await post('mutation($c: String) { createMessage(input: { content: $c }) { id } }', { c: 'x'.repeat(10_001) });
    expect(body.errors?.[0]).toMatchObject({ message: 'input.content: at most 10000 characters, got 10001', extensions: { code: 'INVALID_ARGUMENT' } });
  });
});

describe('limits', () => {
  const nested = (levels: number) => {
    let selection = 'name';
    for (let i = 0; i < levels; i++) selection = `evolutions { ${selection} }`;
    return `{ creature(name: "Cindlet") { ${selection} } }`;
  };

  it('refuses a query nested 20 levels through evolutions before executing it', async () => {
    const { body } = await post(nested(20));
    expect(body.data).toBeUndefined();
    expect(body.errors?.map((e) => e.message)).toContain('Query depth limit of 8 exceeded, found 22.');
  });

  it('still runs reasonably deep queries', async () => {
    const { body } = await post(nested(6));
    expect(body.errors).toBeUndefined();
    // creature + 6 × evolutions + name = depth 8, exactly the limit.
    expect(body.data?.creature).toEqual({ evolutions: [{ evolutions: [{ evolutions: [] }] }, { evolutions: [] }] });
  });

  it('refuses more than 15 aliases and more than 1000 tokens', async () => {
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: creature(number: "${i + 1}") { name }`).join(' ');
    expect((await post(`{ ${aliases} }`)).body.errors?.[0]?.message).toBe('Aliases limit of 15 exceeded, found 16.');
    const tokens = `{ creatures { ${'name '.repeat(1000)} } }`;
    const tokenBody = (await post(tokens)).body;
    expect(tokenBody.data).toBeUndefined();
    expect(tokenBody.errors?.[0]?.message).toMatch(/Token limit of 1000 exceeded/);
  });

  it('refuses an operation whose estimated response is too large, counting list lengths', async () => {
    const all = 'id number name classification types resistant weaknesses weight { minimum maximum } height { minimum maximum } fleeRate maxCP maxHP attacks { fast { name type damage } special { name type damage } } rarity';
    const everything = `creatures { ${all} evolutions { ${all} } previousEvolutions { ${all} } }`;
    // One copy is fine (all creatures, their evolutions in full)…
    const one = await post(`{ ${everything} }`);
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data?.creatures).toHaveLength(150);
    // …two aliased copies are over the limit, and nothing runs.
    const { body } = await post(`{ a: ${everything} b: ${everything} }`);
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.message).toMatch(/^Query cost \d+ exceeds the limit of 50000: ask for fewer items \(first\)/);
  });

  it("lets GraphiQL's full introspection query through (the docs panel needs it)", async () => {
    const query = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true });
    const { body } = await post(query);
    expect(body.errors).toBeUndefined();
    expect(body.data?.__schema.queryType.name).toBe('Query');
  });

  it('refuses request bodies over 100 kB', async () => {
    const res = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ creatures { name } }', variables: { pad: 'x'.repeat(120_000) } }),
    });
    expect(res.status).toBe(413);
  });
});

describe('error masking', () => {
  it('hides unexpected failures behind "Unexpected error." and logs the cause', async () => {
    const lines: string[] = [];
    const failing = new Proxy({} as StateStore, {
      get: () => () => Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:8000 (table secret-state)')),
    });
    const server = createCreatureYoga({ store: failing, logger: createLogger({}, { write: (l) => lines.push(l) }) });
    const res = await server.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ getMessage(id: "0123456789abcdef0123") { id } }' }),
    });
    const text = await res.text();
    expect(text).not.toMatch(/ECONNREFUSED|secret/);
    expect(JSON.parse(text)).toMatchObject({
      data: { getMessage: null },
      errors: [{ message: 'Unexpected error.', path: ['getMessage'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
    });
    expect(lines.some((l) => l.includes('"level":"error"') && l.includes('ECONNREFUSED'))).toBe(true);
  });
});

describe('HTTP rules', () => {
  const get = (query: string, headers: Record<string, string> = {}) =>
    yoga.fetch(`http://localhost/graphql?query=${encodeURIComponent(query)}`, { headers });

  it('runs queries over GET, with no header at all, with a CSRF header or with a JSON content type', async () => {
    for (const headers of [{}, { 'x-graphql-yoga-csrf': '1' }, { 'content-type': 'application/json' }] as Array<Record<string, string>>) {
      const res = await get('{ creature(name: "Pebbro") { number } }', headers);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: { creature: { number: '013' } } });
    }
  });

  it('never runs a mutation over GET, with or without a CSRF header', async () => {
    for (const headers of [{}, { 'x-graphql-yoga-csrf': '1' }] as Array<Record<string, string>>) {
      const res = await get('mutation { createMessage(input: { content: "via GET" }) { id } }', headers);
      expect(res.status).toBe(405);
      const body = (await res.json()) as GraphQLBody;
      expect(body.data).toBeUndefined();
      expect(body.errors?.[0]?.message).toBe('Can only perform a mutation operation from a POST request.');
    }
  });

  it('answers a GET with malformed variables or extensions with a 400 naming the parameter', async () => {
    for (const param of ['variables', 'extensions']) {
      const res = await yoga.fetch(`http://localhost/graphql?query=${encodeURIComponent('{ creatures { name } }')}&${param}=%7Bnot-json`);
      expect(res.status, param).toBe(400);
      const body = (await res.json()) as GraphQLBody;
      expect(body.errors?.[0]?.message, param).toContain(param);
    }
  });

  it('refuses POSTs a browser can send cross-site without a preflight (a form, text/plain, no type), and says what to send instead', async () => {
    const mutation = 'mutation { createMessage(input: { content: "csrf" }) { id } }';
    const attempts: Array<[string, RequestInit]> = [
      ['text/plain POST', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ query: mutation }) }],
      ['form POST', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `query=${encodeURIComponent(mutation)}` }],
      ['multipart POST', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: `--x\r\ncontent-disposition: form-data; name="query"\r\n\r\n${mutation}\r\n--x--\r\n` }],
      ['POST without type', { method: 'POST', body: new Blob([JSON.stringify({ query: mutation })]) }],
    ];
    for (const [label, init] of attempts) {
      const res = await yoga.fetch('http://localhost/graphql', init);
      expect(res.status, label).toBe(403);
      const body = (await res.json()) as GraphQLBody;
      expect(body.data, label).toBeUndefined();
      expect(body.errors?.[0]?.message, label).toMatch(/content-type: application\/json.*x-graphql-yoga-csrf/);
    }
  });

  it('answers CORS preflights from any origin, without credentials, allowing JSON and the CSRF header', async () => {
    const res = await yoga.fetch('http://localhost/graphql', {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://elsewhere.example');
    expect(res.headers.get('vary')).toMatch(/origin/i);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/content-type.*x-graphql-yoga-csrf/);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
