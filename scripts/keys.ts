/**
 * API keys for the file API and the Google-dialect APIs.
 *
 *   npm run keys -- create --scopes task.read,task.write [--name ci]   prints only the new key
 *   npm run keys -- create --scopes cloud-platform,drive.labels         Google OAuth scopes, short or full URL
 *   npm run keys -- list                                               id, name, scopes, created, revoked
 *   npm run keys -- revoke <id>
 *
 * Locally it uses the state of `npm start` (DATA_DIR, default .data): the running platform's
 * DynamoDB endpoint when it runs, otherwise the data folder directly. For a deployed stage, pass
 * `--table <name> [--region <region>]` and AWS credentials as usual.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { ApiKeys, InvalidKeyInputError, parseScopes } from '#lib/auth/keys.js';
import { LOCAL_CREDENTIALS } from '#lib/local/platform.js';
import { readServiceDefinition } from '#lib/local/service-definition.js';
import { DynamoStateStore } from '#lib/state/dynamodb.js';
import { ensureStateTable } from '#lib/state/table.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    scopes: { type: 'string' },
    name: { type: 'string' },
    table: { type: 'string' },
    region: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

const usage = `usage: npm run keys -- create --scopes ${'<scope,…>'} [--name <name>] | list | revoke <id>  [--table <name> --region <region>]`;

async function openStore(): Promise<{ keys: ApiKeys; close: () => Promise<void> }> {
  if (values.table) {
    const client = new DynamoDBClient({ region: values.region ?? process.env.AWS_REGION ?? 'us-east-1' });
    return { keys: new ApiKeys(new DynamoStateStore(client, values.table)), close: async () => {} };
  }
  const dataDir = process.env.DATA_DIR ?? '.data';
  const running = await readFile(path.join(dataDir, 'platform.json'), 'utf8')
    .then((s) => JSON.parse(s) as { dynamodb: string; table: string })
    .catch(() => undefined);
  if (running) {
    const client = new DynamoDBClient({ region: 'us-east-1', endpoint: running.dynamodb, credentials: LOCAL_CREDENTIALS });
    try {
      await ensureStateTable(client, running.table);
      return { keys: new ApiKeys(new DynamoStateStore(client, running.table)), close: async () => {} };
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
    keys: new ApiKeys(new DynamoStateStore(client, table)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<number> {
  const [command, arg] = positionals;
  if (values.help || !command) {
    console.error(usage);
    return command ? 0 : 2;
  }
  const { keys, close } = await openStore();
  try {
    switch (command) {
      case 'create': {
        const { key } = await keys.create({ scopes: parseScopes(values.scopes ?? ''), name: values.name });
        process.stdout.write(key + '\n');
        return 0;
      }
      case 'list': {
        for (const k of await keys.list()) {
          console.log([k.keyId, k.name || '-', k.scopes.join(','), k.createdAt, k.revokedAt ? `revoked ${k.revokedAt}` : 'active'].join('\t'));
        }
        return 0;
      }
      case 'revoke': {
        if (!arg) throw new InvalidKeyInputError('give the id of the key to revoke (see `npm run keys -- list`)');
        const revoked = await keys.revoke(arg);
        if (!revoked) throw new InvalidKeyInputError(`no key with id ${arg}`);
        console.error(`revoked ${revoked.keyId}`);
        return 0;
      }
      default:
        console.error(`unknown command ${command}\n${usage}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof InvalidKeyInputError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  } finally {
    await close();
  }
}

process.exitCode = await main();
