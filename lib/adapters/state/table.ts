/** The state table's key schema, for creating it locally (serverless.yml declares the same for the cloud). */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ScanCommand,
  BatchWriteItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

const index = (name: string) => ({
  IndexName: name,
  KeySchema: [
    { AttributeName: `${name}pk`, KeyType: 'HASH' },
    { AttributeName: `${name}sk`, KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'ALL' },
});

export const stateTableKeys = {
  AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
  KeySchema: [
    { AttributeName: 'pk', KeyType: 'HASH' },
    { AttributeName: 'sk', KeyType: 'RANGE' },
  ],
  /** gsi1: a user's jobs and tasks, newest first. gsi2 (sparse): tasks under way, by when to look at them again. */
  GlobalSecondaryIndexes: [index('gsi1'), index('gsi2')],
} as const;

function create(client: DynamoDBClient, name: string) {
  return client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: stateTableKeys.AttributeDefinitions.map((a) => ({ ...a, AttributeType: 'S' as const })),
      KeySchema: stateTableKeys.KeySchema.map((k) => ({ ...k, KeyType: k.KeyType as 'HASH' | 'RANGE' })),
      GlobalSecondaryIndexes: stateTableKeys.GlobalSecondaryIndexes.map((g) => ({
        IndexName: g.IndexName,
        KeySchema: g.KeySchema.map((k) => ({ ...k, KeyType: k.KeyType as 'HASH' | 'RANGE' })),
        Projection: { ProjectionType: 'ALL' as const },
      })),
    }),
  );
}

/**
 * Creates the table unless it exists. A table from an older version of the project that lacks an
 * index is rebuilt with its items (local data folders only: this never runs against the cloud).
 */
export async function ensureStateTable(client: DynamoDBClient, name: string): Promise<void> {
  try {
    await create(client, name);
    return;
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
  const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
  const have = new Set((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName));
  if (stateTableKeys.GlobalSecondaryIndexes.every((g) => have.has(g.IndexName))) return;

  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: name, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  await client.send(new DeleteTableCommand({ TableName: name }));
  await create(client, name);
  for (let i = 0; i < items.length; i += 25) {
    let requests = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (requests.length) {
      const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [name]: requests } }));
      requests = (out.UnprocessedItems?.[name] ?? []) as typeof requests;
    }
  }
}
