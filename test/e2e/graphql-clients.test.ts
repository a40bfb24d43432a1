/**
 * GraphQL clients with their defaults against the graphql function as deployed: by default the local
 * platform (serverless-offline running serverless.yml's functions, as `npm start` does), so requests go
 * through API Gateway's event format and the Lambda adapter; GRAPHQL_E2E_BASE_URL tests a running
 * service instead. test/integration/graphql-clients.test.ts checks the same clients on the wire.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLClient } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatureCatalog } from '#lib/graphql/creatures/catalog.js';
import { startEmulator } from '../../local/emulator.js';
import { e2eOutput } from '../support/platform-output.js';

let endpoint: string;
const cleanups: Array<() => Promise<void>> = [];
const catalog = creatureCatalog();

beforeAll(async () => {
  if (process.env.GRAPHQL_E2E_BASE_URL) {
    endpoint = `${process.env.GRAPHQL_E2E_BASE_URL.replace(/\/$/, '')}/graphql`;
    return;
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'graphql-clients-e2e-'));
  const platform = await startEmulator({ dataDir, dispatch: false, output: e2eOutput });
  cleanups.push(async () => {
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  endpoint = `${platform.baseUrl}/graphql`;
}, 300_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const EVOLUTIONS = 'query Evolutions($n: String) { creature(number: $n) { name evolutions { name } } }';
const evolutionsOf = (number: string) => {
  const record = catalog.byNumber(number)!;
  return { creature: { name: record.name, evolutions: record.evolutions.map((e) => ({ name: e.name })) } };
};
const plain = (value: unknown) => JSON.parse(JSON.stringify(value, (key, v) => (key === '__typename' ? undefined : v)));

describe('through the graphql function', () => {
  it('graphql-request: GET, POST and a batch', async () => {
    expect(await new GraphQLClient(endpoint, { method: 'GET' }).request(EVOLUTIONS, { n: '1' })).toEqual(evolutionsOf('001'));
    const client = new GraphQLClient(endpoint);
    expect(await client.request(EVOLUTIONS, { n: '10' })).toEqual(evolutionsOf('010'));
    const batch = await client.batchRequests([
      { document: EVOLUTIONS, variables: { n: '4' } },
      { document: EVOLUTIONS, variables: { n: '7' } },
    ]);
    expect(batch.map((r) => r.data)).toEqual([evolutionsOf('004'), evolutionsOf('007')]);
  });

  it('@apollo/client: hashed queries over GET, falling back to the whole query once, and a batch', async () => {
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const query = apolloGql(EVOLUTIONS);
    const persisted = () =>
      new ApolloClient({
        link: new PersistedQueryLink({ sha256, useGETForHashedQueries: true }).concat(new HttpLink({ uri: endpoint, useGETForQueries: true })),
        cache: new InMemoryCache(),
      });
    expect(plain((await persisted().query({ query, variables: { n: '13' } })).data)).toEqual(evolutionsOf('013'));
    expect(plain((await persisted().query({ query, variables: { n: '16' } })).data)).toEqual(evolutionsOf('016'));

    const batching = new ApolloClient({ link: new BatchHttpLink({ uri: endpoint }), cache: new InMemoryCache() });
    const answers = await Promise.all(['19', '22'].map((n) => batching.query({ query, variables: { n } })));
    expect(answers.map((a) => plain(a.data))).toEqual([evolutionsOf('019'), evolutionsOf('022')]);
  });
});
