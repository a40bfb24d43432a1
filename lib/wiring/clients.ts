/**
 * The singletons of one function instance, created once from the validated configuration.
 * Only the adapters a function touches are constructed (and, with bundling, only their SDKs shipped).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { config } from '../kernel/config.js';
import { DynamoStateStore } from '../adapters/state/dynamodb.js';
import { BACKEND_CALL_LIMITS } from '../kernel/call-limits.js';
import type { StateStore } from '../adapters/state/port.js';

export const once = <T>(make: () => T): (() => T) => {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
};

export const stateStore = once((): StateStore => {
  const c = config();
  const client = new DynamoDBClient({ region: c.AWS_REGION, endpoint: c.AWS_ENDPOINT_URL_DYNAMODB, requestHandler: BACKEND_CALL_LIMITS });
  return new DynamoStateStore(client, c.STATE_TABLE);
});

export { rootLogger } from '../kernel/root-logger.js';
