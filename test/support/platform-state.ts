/** The state table of a platform the e2e tests started (local/emulator.ts), read and written directly. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { type Emulator } from '../../local/emulator.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';

export const platformState = (platform: Emulator) =>
  new DynamoStateStore(new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }), 'api-platform-local-state');
