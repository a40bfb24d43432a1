/** An in-memory dynalite on a free port with the state table, for integration tests. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { ensureStateTable } from '#lib/adapters/state/table.js';
import { keepIdleConnections } from '../../local/shared/idle.js';

export async function startStateBackend(table = 'state') {
  const server = keepIdleConnections(dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureStateTable(client, table);
  return {
    endpoint,
    table,
    client,
    store: new DynamoStateStore(client, table),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
