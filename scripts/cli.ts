/**
 * What the command-line tools (`npm run keys`, `users`, `oauth`) share: the state table they work on
 * and how a subcommand runs. Locally the table is the state of `npm start` (DATA_DIR, default .data):
 * the running platform's DynamoDB endpoint when it runs, otherwise the data folder directly. For a
 * deployed stage, `--table <name> [--region <region>]` and AWS credentials as usual.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { Accounts } from '#lib/access/auth/accounts.js';
import { Credits } from '#lib/file-api/account/credits.js';
import { Users } from '#lib/access/auth/users.js';
import { accountConfig } from '#lib/kernel/config.js';
import { LOCAL_CREDENTIALS } from '../local/backends.js';
import { readServiceDefinition } from '../local/service-definition.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import type { StateStore } from '#lib/adapters/state/port.js';
import { ensureStateTable } from '#lib/adapters/state/table.js';

/** The options every tool takes for a deployed stage. */
export const STORE_OPTIONS = {
  table: { type: 'string' },
  region: { type: 'string' },
} as const;

export async function openStateStore(opts: { table?: string; region?: string }): Promise<{ store: StateStore; close: () => Promise<void> }> {
  if (opts.table) {
    const client = new DynamoDBClient({ region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1' });
    return { store: new DynamoStateStore(client, opts.table), close: async () => {} };
  }
  const dataDir = process.env.DATA_DIR ?? '.data';
  const running = await readFile(path.join(dataDir, 'platform.json'), 'utf8')
    .then((s) => JSON.parse(s) as { dynamodb: string; table: string })
    .catch(() => undefined);
  if (running) {
    const client = new DynamoDBClient({ region: 'us-east-1', endpoint: running.dynamodb, credentials: LOCAL_CREDENTIALS });
    try {
      await ensureStateTable(client, running.table);
      return { store: new DynamoStateStore(client, running.table), close: async () => {} };
    } catch {
      // The platform is gone (its file was left behind): open the data folder below.
    }
  }
  const server = dynalite({ path: path.join(dataDir, 'dynamodb'), createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: LOCAL_CREDENTIALS });
  const table = `${readServiceDefinition().service}-local-state`;
  await ensureStateTable(client, table);
  return {
    store: new DynamoStateStore(client, table),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Reads all of stdin (for `--password-stdin`), without its final line break. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** The accounts of the store, with the built-in account's ACCOUNT_* settings from the environment. */
export function accountsOf(store: StateStore): Accounts {
  const c = accountConfig();
  return new Accounts(store, { username: c.ACCOUNT_USERNAME, email: c.ACCOUNT_EMAIL, credits: c.ACCOUNT_CREDITS });
}

/** The balances of the accounts in this store. */
export function creditsOf(store: StateStore): Credits {
  const c = accountConfig();
  return new Credits({ state: store, users: new Users(store, { username: c.ACCOUNT_USERNAME, email: c.ACCOUNT_EMAIL, credits: c.ACCOUNT_CREDITS }) });
}

export interface Tool {
  usage: string;
  /** The subcommand asked for (the first positional argument), and whether --help was given. */
  command: string | undefined;
  help?: boolean;
  store: { table?: string; region?: string };
  /** Mistakes of the caller: their message is printed and the exit code is 2. */
  inputErrors: ReadonlyArray<abstract new (...args: never[]) => Error>;
  /** How such a mistake is worded (default: its message). */
  explain?: (err: Error) => string;
  /** One entry per subcommand: what it does with the opened store. */
  commands: (store: StateStore) => Record<string, () => Promise<void>>;
}

/** Runs the tool's subcommand; resolves to the process exit code. */
export async function runTool(tool: Tool): Promise<number> {
  if (tool.help || !tool.command) {
    console.error(tool.usage);
    return tool.help ? 0 : 2;
  }
  const { store, close } = await openStateStore(tool.store);
  try {
    const commands = tool.commands(store);
    const run = Object.hasOwn(commands, tool.command) ? commands[tool.command] : undefined;
    if (!run) {
      console.error(`unknown command ${tool.command}\n${tool.usage}`);
      return 2;
    }
    await run();
    return 0;
  } catch (err) {
    if (err instanceof Error && tool.inputErrors.some((kind) => err instanceof kind)) {
      console.error(tool.explain ? tool.explain(err) : err.message);
      return 2;
    }
    throw err;
  } finally {
    await close();
  }
}
