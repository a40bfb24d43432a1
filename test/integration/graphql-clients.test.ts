/**
 * Standard GraphQL clients with their defaults against the creature server served by `node:http`
 * (`createServer(yoga)`), messages in a real (dynalite) state store: graphql-request (POST, GET,
 * `batchRequests`) and @apollo/client (GET for queries, `BatchHttpLink`, `PersistedQueryLink`). Each
 * runs a real query and checks the data; the server records what came over the wire, so that a test
 * also shows the transport it meant to use was used.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql, type ApolloLink } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLClient, batchRequests, gql } from 'graphql-request';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { creatureCatalog } from '#lib/graphql/creatures/catalog.js';
import { createCreatureYoga } from '#lib/graphql/creatures/yoga.js';
import { createLogger } from '#lib/kernel/log.js';
import { startStateBackend } from '../support/dynalite.js';

interface Seen {
  method: string;
  url: URL;
  body: string;
}

let backend: Awaited<ReturnType<typeof startStateBackend>>;
let server: Server;
let endpoint: string;
let seen: Seen[] = [];
const catalog = creatureCatalog();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  backend = await startStateBackend();
  const yoga = createCreatureYoga({ store: backend.store, logger: createLogger({}, { level: 'error', write: () => {} }) });
  server = createServer((req, res) => {
    // Keep a copy of what came in, then hand yoga the body it would have read.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: new URL(req.url ?? '/', 'http://x'), body: body.toString('utf8') });
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const init: RequestInit = { method: req.method, headers, ...(body.length ? { body } : {}) };
      void Promise.resolve(yoga.fetch(`http://${req.headers.host}${req.url}`, init)).then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await backend?.close();
});
beforeEach(() => {
  seen = [];
});

const CREATURE = 'query Creature($name: String) { creature(name: $name) { number name types } }';
const expected = (name: string) => {
  const record = catalog.byName(name)!;
  return { number: record.number, name: record.name, types: record.types };
};

describe('graphql-request', () => {
  it('runs a query over POST (its default)', async () => {
    const client = new GraphQLClient(endpoint);
    expect(await client.request(CREATURE, { name: 'Pebbro' })).toEqual({ creature: expected('Pebbro') });
    expect(seen.map((s) => s.method)).toEqual(['POST']);
  });

  it('runs a query over GET, with no extra header', async () => {
    const client = new GraphQLClient(endpoint, { method: 'GET' });
    expect(await client.request(CREATURE, { name: 'Cindlet' })).toEqual({ creature: expected('Cindlet') });
    expect(seen.map((s) => s.method)).toEqual(['GET']);
    expect(seen[0]!.url.searchParams.get('query')).toContain('creature(name: $name)');
  });

  it('runs a mutation through a GET client over POST, as graphql-request sends mutations', async () => {
    const client = new GraphQLClient(endpoint, { method: 'GET' });
    const created = await client.request<{ createMessage: { id: string; content: string } }>(
      gql`mutation { createMessage(input: { content: "from graphql-request" }) { id content } }`,
    );
    expect(created.createMessage.content).toBe('from graphql-request');
    expect(seen.map((s) => s.method)).toEqual(['POST']);
    const read = await client.request<{ getMessage: { content: string } }>(gql`query($id: ID!) { getMessage(id: $id) { content } }`, {
      id: created.createMessage.id,
    });
    expect(read.getMessage.content).toBe('from graphql-request');
  });

  it('sends several queries in one request with batchRequests', async () => {
    const names = ['Cindlet', 'Voltkit', 'Mossgrove'];
    const results = await batchRequests(
      endpoint,
      names.map((name) => ({ document: CREATURE, variables: { name } })),
    );
    expect(results.map((r) => r.data)).toEqual(names.map((name) => ({ creature: expected(name) })));
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!.body)).toHaveLength(3);
  });
});

describe('@apollo/client', () => {
  const apollo = (link: ApolloLink) => new ApolloClient({ link, cache: new InMemoryCache() });
  const CREATURE_APOLLO = apolloGql(CREATURE);
  const withoutTypename = (value: unknown) => JSON.parse(JSON.stringify(value, (k, v) => (k === '__typename' ? undefined : v)));

  it('runs queries over GET with HttpLink({ useGETForQueries: true })', async () => {
    const client = apollo(new HttpLink({ uri: endpoint, useGETForQueries: true }));
    const { data } = await client.query({ query: CREATURE_APOLLO, variables: { name: 'Voltkit' } });
    expect(withoutTypename(data)).toEqual({ creature: expected('Voltkit') });
    expect(seen.map((s) => s.method)).toEqual(['GET']);
  });

  it('sends the queries made together in one request with BatchHttpLink', async () => {
    const client = apollo(new BatchHttpLink({ uri: endpoint }));
    const names = ['Cindlet', 'Pebbro', 'Voltkit'];
    const answers = await Promise.all(names.map((name) => client.query({ query: CREATURE_APOLLO, variables: { name } })));
    expect(answers.map((a) => withoutTypename(a.data))).toEqual(names.map((name) => ({ creature: expected(name) })));
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!.body)).toHaveLength(3);
  });

  it('sends a hash first with PersistedQueryLink, the whole query once on a miss, then the hash alone', async () => {
    const link = () => new PersistedQueryLink({ sha256 }).concat(new HttpLink({ uri: endpoint }));
    const first = await apollo(link()).query({ query: CREATURE_APOLLO, variables: { name: 'Mossgrove' } });
    expect(withoutTypename(first.data)).toEqual({ creature: expected('Mossgrove') });
    // The hash alone (the server does not know it), then hash and query.
    expect(seen.map((s) => JSON.parse(s.body).query === undefined)).toEqual([true, false]);

    seen = [];
    const again = await apollo(link()).query({ query: CREATURE_APOLLO, variables: { name: 'Cindlet' } });
    expect(withoutTypename(again.data)).toEqual({ creature: expected('Cindlet') });
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ extensions: { persistedQuery: { version: 1, sha256Hash: expect.stringMatching(/^[0-9a-f]{64}$/) } } });
    expect(JSON.parse(seen[0]!.body).query).toBeUndefined();
  });

  it('sends hashed queries over GET with useGETForHashedQueries', async () => {
    const link = () => new PersistedQueryLink({ sha256, useGETForHashedQueries: true }).concat(new HttpLink({ uri: endpoint }));
    const QUERY = apolloGql`query Weaknesses($n: String) { creature(number: $n) { name weaknesses } }`;
    const first = await apollo(link()).query({ query: QUERY, variables: { n: '10' } });
    expect(withoutTypename(first.data)).toEqual({ creature: { name: 'Voltkit', weaknesses: catalog.byNumber('010')!.weaknesses } });
    expect(seen.map((s) => s.method)).toEqual(['GET', 'POST']);
    seen = [];
    const again = await apollo(link()).query({ query: QUERY, variables: { n: '13' } });
    expect(withoutTypename(again.data)).toEqual({ creature: { name: 'Pebbro', weaknesses: catalog.byNumber('013')!.weaknesses } });
    expect(seen.map((s) => s.method)).toEqual(['GET']);
    expect(seen[0]!.url.searchParams.get('query')).toBeNull();
  });
});
