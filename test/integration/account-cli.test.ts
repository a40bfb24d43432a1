/**
 * The command-line tools as an operator runs them against a data folder (`npm run users`, `oauth`,
 * `keys`, `sandbox`): accounts with their one-time or chosen passwords, OAuth clients with their secret shown
 * once, keys of a user, and disabling.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import dynalite from 'dynalite';
import { afterAll, describe, expect, it } from 'vitest';
import { Accounts } from '#lib/access/auth/accounts.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { OAuthClients } from '#lib/access/oauth/clients.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'account-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs `npm run -s <tool> -- <args>` as the package script does, with the data folder. */
async function tool(name: 'users' | 'oauth' | 'keys' | 'sandbox', args: string[], stdin?: string) {
  const run = promisify(execFile);
  const child = run(process.execPath, ['--import', 'tsx', `scripts/${name}.ts`, ...args], {
    // An operator's shell: not the settings other test files left in this worker's environment (a
    // whole run once gave the tool a table it had not made; alone it never failed).
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, DATA_DIR: dataDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  if (stdin !== undefined) child.child.stdin!.end(stdin);
  else child.child.stdin!.end();
  return child.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

/** The data folder's state, opened after the tools have exited (they hold its lock while running). */
async function withState<T>(fn: (store: DynamoStateStore) => Promise<T>): Promise<T> {
  const server = dynalite({ path: path.join(dataDir, 'dynamodb'), createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    return await fn(new DynamoStateStore(client, 'api-platform-local-state'));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const accountsOf = (store: DynamoStateStore) => new Accounts(store, { username: 'local', email: 'local@example.com', credits: 'unlimited' });

describe('npm run users, oauth and keys', () => {
  it('creates accounts with a password shown once or read from stdin, refuses a taken e-mail, and disables', async () => {
    const made = await tool('users', ['create', '--email', 'Ann@Example.com', '--name', 'Ann']);
    expect(made.code, made.stderr).toBe(0);
    const password = made.stdout.trim();
    expect(password).toMatch(/^[\w-]{20}$/);
    expect(made.stderr).toContain('created user 2 (ann@example.com)');
    expect(made.stderr).not.toContain(password);

    const chosen = await tool('users', ['create', '--email', 'bob@example.com', '--name', 'Bob', '--password-stdin'], 'bobs-own-password\n');
    expect([chosen.code, chosen.stdout]).toEqual([0, '']);
    const bobId = /created user (\d+) \(bob@example\.com\)/.exec(chosen.stderr)?.[1];
    expect(bobId).toBe('3');
    const taken = await tool('users', ['create', '--email', 'ANN@example.com', '--name', 'Other']);
    expect([taken.code, taken.stderr.trim()]).toEqual([2, 'email: has already been taken']);
    const short = await tool('users', ['create', '--email', 'c@example.com', '--name', 'C', '--password-stdin'], 'short\n');
    expect(short.stderr).toContain('password: the password must be at least 12 characters');

    const key = await tool('keys', ['create', '--scopes', 'task.read', '--user', 'bob@example.com', '--name', 'bobs']);
    expect(key.stdout.trim()).toMatch(/^key_/);
    expect((await tool('keys', ['create', '--scopes', 'task.read', '--user', 'nobody@example.com'])).code).toBe(2);
    expect((await tool('users', ['disable', 'bob@example.com'])).code).toBe(0);
    const list = await tool('users', ['list']);
    expect(list.stdout.split('\n').filter(Boolean).map((line) => line.split('\t').slice(0, 3))).toEqual([
      ['1', 'local', 'local@example.com'],
      ['2', 'Ann', 'ann@example.com'],
      ['3', 'Bob', 'bob@example.com'],
    ]);
    expect(list.stdout).toMatch(/bob@example\.com\t\S+\tunlimited\tdisabled /);

    // Balances: set, shown by list, refused when malformed; a new account may start with its own.
    expect((await tool('users', ['credits', 'ann@example.com', '20'])).stderr).toContain('user 2 (ann@example.com): 20 credits');
    expect((await tool('users', ['credits', '2', 'lots'])).code).toBe(2);
    expect((await tool('users', ['credits', '2'])).code).toBe(2);
    const metered = await tool('users', ['create', '--email', 'dee@example.com', '--name', 'Dee', '--credits', '5']);
    expect(metered.code).toBe(0);
    const balances = (await tool('users', ['list'])).stdout.split('\n').filter(Boolean).map((line) => line.split('\t')[4]);
    expect(balances).toEqual(['unlimited', '20 credits', 'unlimited', '5 credits']);
    expect((await tool('users', ['credits', 'dee@example.com', 'unlimited'])).stderr).toContain('unlimited credits');

    await withState(async (store) => {
      const accounts = accountsOf(store);
      expect((await accounts.authenticate('ann@example.com', password))?.id).toBe(2);
      expect(await accounts.authenticate('bob@example.com', 'bobs-own-password')).toBeUndefined(); // disabled
      const keys = await new ApiKeys(store).list();
      expect(keys.find((k) => k.name === 'bobs')?.userId).toBe(3);
    });
  });

  it('registers OAuth clients: a confidential one gets its secret once, a public one none; lists and deletes', async () => {
    const confidential = await tool('oauth', ['clients', 'create', '--name', 'Server app', '--redirect-uri', 'https://app.example.com/cb']);
    const fields = Object.fromEntries(confidential.stdout.trim().split('\n').map((l) => l.split('\t') as [string, string]));
    expect(fields.client_id).toMatch(/^[0-9a-f]{24}$/);
    expect(fields.client_secret).toMatch(/^ocs_/);
    const pub = await tool('oauth', ['clients', 'create', '--name', 'SPA', '--redirect-uri', 'http://localhost:5173/cb', '--redirect-uri', 'https://spa.example.com/cb', '--public', '--implicit']);
    expect(pub.stdout).not.toContain('client_secret');
    const bad = await tool('oauth', ['clients', 'create', '--name', 'Bad', '--redirect-uri', 'http://spa.example.com/cb']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('use https')]);

    const list = await tool('oauth', ['clients', 'list']);
    expect(list.stdout).toContain(`${fields.client_id}\tServer app\tconfidential\tcode\thttps://app.example.com/cb`);
    expect(list.stdout).toContain('SPA\tpublic\tcode+implicit\thttp://localhost:5173/cb https://spa.example.com/cb');
    expect(list.stdout).not.toContain(fields.client_secret);

    await withState(async (store) => {
      const clients = new OAuthClients(store);
      expect(await clients.authenticate(fields.client_id!, fields.client_secret)).toBeDefined();
      expect(await clients.authenticate(fields.client_id!, 'ocs_wrong')).toBeUndefined();
    });
    expect((await tool('oauth', ['clients', 'delete', fields.client_id!])).code).toBe(0);
    expect((await tool('oauth', ['clients', 'list'])).stdout).not.toContain('Server app');
  });

  it('makes sandbox keys and sandbox clients, and keeps a sandbox whitelist from a file or an MD5', async () => {
    const key = (await tool('keys', ['create', '--scopes', 'task.read', '--name', 'sbx', '--sandbox'])).stdout.trim();
    expect((await tool('keys', ['list'])).stdout).toMatch(/\tsbx\ttask\.read\t\S+\tactive\tsandbox\n/);
    expect((await tool('oauth', ['clients', 'create', '--name', 'Sandbox app', '--redirect-uri', 'https://app.example.com/cb', '--public', '--sandbox'])).code).toBe(0);
    expect((await tool('oauth', ['clients', 'list'])).stdout).toMatch(/\tSandbox app\tpublic\t.*\tsandbox\n/);

    const file = path.join(dataDir, 'photo.png');
    writeFileSync(file, 'png bytes');
    const fileMd5 = createHash('md5').update('png bytes').digest('hex');
    expect((await tool('sandbox', ['allow', file])).stdout.trim()).toBe(fileMd5);
    expect((await tool('sandbox', ['allow', 'AB'.repeat(16), '--user', 'ann@example.com'])).code).toBe(0);
    expect((await tool('sandbox', ['list'])).stdout).toMatch(new RegExp(`^${fileMd5}\tphoto[.]png\t`));
    expect((await tool('sandbox', ['remove', fileMd5])).code).toBe(0);
    expect((await tool('sandbox', ['list'])).stdout).toBe('');
    expect((await tool('sandbox', ['list', '--user', '2'])).stdout).toContain('ab'.repeat(16));
    expect(await tool('sandbox', ['allow', 'no-such-file'])).toMatchObject({ code: 2, stderr: expect.stringContaining('neither a file nor an MD5') });

    await withState(async (store) => {
      expect(await new ApiKeys(store).verify(key)).toMatchObject({ name: 'sbx', sandbox: true });
    });
  });

  it('keys reindex puts keys made before the per-user index into their user\'s list, once', async () => {
    const key = (await tool('keys', ['create', '--scopes', 'user.read', '--name', 'before the index'])).stdout.trim();
    const { keyId } = await withState(async (store) => {
      const record = (await new ApiKeys(store).verify(key))!;
      // As an older version wrote it.
      await store.update({ pk: record.pk, sk: 'apikey' }, { remove: ['gsi2pk', 'gsi2sk'] });
      expect((await new ApiKeys(store).allOf(record.userId)).map((k) => k.keyId)).not.toContain(record.keyId);
      return record;
    });
    expect((await tool('keys', ['reindex'])).stderr).toContain('indexed 1 keys by user');
    expect((await tool('keys', ['reindex'])).stderr).toContain('indexed 0 keys by user');
    await withState(async (store) => {
      expect((await new ApiKeys(store).allOf(1)).map((k) => k.keyId)).toContain(keyId);
    });
  });
});
