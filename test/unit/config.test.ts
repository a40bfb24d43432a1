import { describe, expect, it } from 'vitest';
import { ConfigError, graphqlConfig, parseConfig } from '#lib/kernel/config.js';

const minimal = {
  STATE_TABLE: 't',
  FILES_BUCKET: 'b',
  IMPORT_QUEUE: 'i',
  PROCESS_QUEUE: 'p',
  EXPORT_QUEUE: 'e',
  OPERATIONS_QUEUE: 'o',
  WEBHOOKS_QUEUE: 'w',
};

describe('configuration', () => {
  it('applies defaults and coerces numbers', () => {
    const c = parseConfig({ ...minimal, RATE_LIMIT: '5' });
    expect(c.RATE_LIMIT).toBe(5);
    expect(c.RATE_LIMIT_WINDOW_SECONDS).toBe(60);
    expect(c.ALLOW_LOOPBACK_FETCH).toBe(false);
    expect(c.AWS_ENDPOINT_URL_DYNAMODB).toBeUndefined();
  });

  it('gives the waits a budget of 40 at once unless the stage sets one (0: every wait answers at once)', () => {
    expect(parseConfig(minimal).WAIT_BUDGET).toBe(40);
    expect(parseConfig({ ...minimal, WAIT_BUDGET: '0' }).WAIT_BUDGET).toBe(0);
    expect(() => parseConfig({ ...minimal, WAIT_BUDGET: '-1' })).toThrow(ConfigError);
  });

  it('takes the built-in account\'s balance as a number of credits or unlimited, the default', () => {
    expect(parseConfig(minimal).ACCOUNT_CREDITS).toBe('unlimited');
    expect(parseConfig({ ...minimal, ACCOUNT_CREDITS: '250' }).ACCOUNT_CREDITS).toBe(250);
    expect(parseConfig({ ...minimal, ACCOUNT_CREDITS: 'Unlimited' }).ACCOUNT_CREDITS).toBe('unlimited');
    for (const bad of ['-5', 'plenty', '2.5']) {
      expect(() => parseConfig({ ...minimal, ACCOUNT_CREDITS: bad })).toThrow('ACCOUNT_CREDITS: must be a whole number of credits (0 or more) or unlimited');
    }
    expect(parseConfig(minimal).USAGE_RETENTION_DAYS).toBe(400);
    expect(() => parseConfig({ ...minimal, USAGE_RETENTION_DAYS: '30' })).toThrow(/USAGE_RETENTION_DAYS/);
  });

  it('reads the GraphQL batch bound alone, 10 by default, 0 refusing batches, and names it when malformed', () => {
    expect(graphqlConfig({})).toEqual({ GRAPHQL_BATCH_LIMIT: 10 });
    expect(graphqlConfig({ GRAPHQL_BATCH_LIMIT: '3' }).GRAPHQL_BATCH_LIMIT).toBe(3);
    expect(graphqlConfig({ GRAPHQL_BATCH_LIMIT: '0' }).GRAPHQL_BATCH_LIMIT).toBe(0);
    expect(parseConfig({ ...minimal, GRAPHQL_BATCH_LIMIT: '20' }).GRAPHQL_BATCH_LIMIT).toBe(20);
    for (const bad of ['many', '-1', '2.5', '101']) {
      expect(() => graphqlConfig({ GRAPHQL_BATCH_LIMIT: bad }), bad).toThrow(/^invalid configuration, set these environment variables: GRAPHQL_BATCH_LIMIT: /);
    }
  });

  it('fails with the names of the missing or malformed settings', () => {
    const { STATE_TABLE: _omit, ...rest } = minimal;
    expect(() => parseConfig({ ...rest, RATE_LIMIT: 'many' })).toThrow(ConfigError);
    try {
      parseConfig({ ...rest, RATE_LIMIT: 'many' });
    } catch (err) {
      expect((err as Error).message).toContain('STATE_TABLE');
      expect((err as Error).message).toContain('RATE_LIMIT');
    }
  });
});
