/** The state table's key schema, for creating it locally (serverless.yml declares the same for the cloud). */
import { CreateTableCommand, ResourceInUseException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

export const stateTableKeys = {
  AttributeDefinitions: [
    { AttributeName: 'pk', AttributeType: 'S' },
    { AttributeName: 'sk', AttributeType: 'S' },
    { AttributeName: 'gsi1pk', AttributeType: 'S' },
    { AttributeName: 'gsi1sk', AttributeType: 'S' },
  ],
  KeySchema: [
    { AttributeName: 'pk', KeyType: 'HASH' },
    { AttributeName: 'sk', KeyType: 'RANGE' },
  ],
  GlobalSecondaryIndexes: [
    {
      IndexName: 'gsi1',
      KeySchema: [
        { AttributeName: 'gsi1pk', KeyType: 'HASH' },
        { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    },
  ],
} as const;

/** Creates the table unless it exists. */
export async function ensureStateTable(client: DynamoDBClient, name: string): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...stateTableKeys.AttributeDefinitions],
        KeySchema: [...stateTableKeys.KeySchema],
        GlobalSecondaryIndexes: stateTableKeys.GlobalSecondaryIndexes.map((g) => ({
          ...g,
          KeySchema: [...g.KeySchema],
        })),
      }),
    );
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
}
