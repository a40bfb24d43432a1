/**
 * `export/sftp` → `import/sftp` and `export/openstack` → `import/openstack` through the official
 * `cloudconvert` SDK against the whole platform (serverless-offline, queues, consumers), with a real
 * SFTP server (ssh2, password and public-key authentication checked for real) and the Keystone+Swift
 * double on loopback (the service runs with ALLOW_LOOPBACK_FETCH, as the other e2e tests do).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { ed25519KeyPair, startSftpServer, type SftpTestServer } from '../support/sftp-server.js';
import { startSwiftDouble, type SwiftDouble } from '../support/swift-double.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'sftp-e2e-'));
const password = `pw-${randomBytes(12).toString('hex')}`;
const passphrase = `pp-${randomBytes(12).toString('hex')}`;
const userKey = ed25519KeyPair({ passphrase, cipher: 'aes256-ctr', rounds: 4 });
const swiftPassword = `swift-${randomBytes(12).toString('hex')}`;
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let sftp: SftpTestServer;
let swift: SwiftDouble;

beforeAll(async () => {
  [sftp, swift] = await Promise.all([
    startSftpServer({ pw: { password }, keyed: { publicKeys: [userKey.public] } }),
    startSwiftDouble({ alice: { password: swiftPassword, projects: ['demo'] } }, ['files']),
  ]);
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { ALLOW_LOOPBACK_FETCH: 'true' } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
});
afterAll(async () => {
  await platform?.stop();
  await Promise.all([sftp?.close(), swift?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

const b64 = (b: Buffer) => b.toString('base64');

async function run(tasks: Record<string, Record<string, unknown>>) {
  const created = await cc.jobs.create({ tasks } as never);
  const job = await cc.jobs.wait(created.id);
  return { job, byName: Object.fromEntries(job.tasks.map((t) => [t.name, t])) };
}

async function downloads(job: Awaited<ReturnType<typeof cc.jobs.wait>>) {
  const out: Record<string, Buffer> = {};
  for (const f of cc.jobs.getExportUrls(job)) out[f.filename] = Buffer.from(await (await fetch(f.url!)).arrayBuffer());
  return out;
}

describe('export/sftp and import/sftp', () => {
  const sftpArgs = () => ({ host: sftp.host, port: sftp.port });
  const body = randomBytes(300 * 1024 + 17); // several SFTP chunks, not a multiple of one

  it('password auth: export/sftp writes the bytes (file and path), import/sftp brings them back equal', async () => {
    const out = await run({
      a: { operation: 'import/base64', file: b64(body), filename: 'data.bin' },
      one: { operation: 'export/sftp', input: 'a', ...sftpArgs(), username: 'pw', password, file: 'exports/one.bin', host_key: sftp.hostKeyFingerprint },
      dir: { operation: 'export/sftp', input: 'a', ...sftpArgs(), username: 'pw', password, path: 'folder' },
    });
    expect(out.job.status).toBe('finished');
    expect(readFileSync(path.join(sftp.root, 'exports/one.bin')).equals(body)).toBe(true);
    expect(readFileSync(path.join(sftp.root, 'folder/data.bin')).equals(body)).toBe(true);

    const back = await run({
      get: { operation: 'import/sftp', ...sftpArgs(), username: 'pw', password, file: 'exports/one.bin', filename: 'back.bin' },
      all: { operation: 'import/sftp', ...sftpArgs(), username: 'pw', password, path: 'folder' },
      url: { operation: 'export/url', input: ['get', 'all'] },
    });
    expect(back.job.status).toBe('finished');
    const files = await downloads(back.job);
    expect(Object.keys(files).sort()).toEqual(['back.bin', 'data.bin']);
    expect(files['back.bin']!.equals(body)).toBe(true);
    expect(files['data.bin']!.equals(body)).toBe(true);
    expect(sftp.auth.filter((a) => a.username === 'pw' && a.accepted).length).toBeGreaterThanOrEqual(4);
  });

  it('key auth (encrypted OpenSSH private_key with passphrase): round trip with equal bytes', async () => {
    const keyed = { ...sftpArgs(), username: 'keyed', private_key: userKey.private, passphrase };
    const out = await run({
      a: { operation: 'import/base64', file: b64(body), filename: 'keyed.bin' },
      put: { operation: 'export/sftp', input: 'a', ...keyed, file: 'keyed/k.bin' },
    });
    expect(out.job.status).toBe('finished');
    const back = await run({
      get: { operation: 'import/sftp', ...keyed, file: 'keyed/k.bin' },
      url: { operation: 'export/url', input: 'get' },
    });
    expect(back.job.status).toBe('finished');
    expect((await downloads(back.job))['k.bin']!.equals(body)).toBe(true);
    expect(sftp.auth.some((a) => a.username === 'keyed' && a.method === 'publickey' && a.accepted)).toBe(true);
    expect(sftp.auth.some((a) => a.username === 'keyed' && a.method === 'password')).toBe(false);
  });

  it('a forbidden host, a wrong password and a wrong host key fail their tasks with clear messages', async () => {
    const connectionsBefore = sftp.connections;
    const { byName } = await run({
      a: { operation: 'import/base64', file: b64(Buffer.from('x')), filename: 'x.txt' },
      metadata: { operation: 'export/sftp', input: 'a', host: '169.254.169.254', username: 'pw', password, file: 'x.txt', ignore_error: true },
      wrong: { operation: 'export/sftp', input: 'a', ...sftpArgs(), username: 'pw', password: 'not-the-password', file: 'x.txt', ignore_error: true },
      spoofed: { operation: 'export/sftp', input: 'a', ...sftpArgs(), username: 'pw', password, file: 'x.txt', host_key: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', ignore_error: true },
      fetched: { operation: 'import/sftp', host: '169.254.169.254', username: 'pw', password, file: 'x.txt', ignore_error: true },
    });
    expect(byName.metadata).toMatchObject({ status: 'error', code: 'UPLOAD_FAILED' });
    expect(byName.metadata?.message).toMatch(/^SFTP \(FORBIDDEN_ADDRESS\): Refusing to connect to "169\.254\.169\.254"/);
    expect(byName.fetched).toMatchObject({ status: 'error', code: 'DOWNLOAD_FAILED' });
    expect(byName.fetched?.message).toMatch(/FORBIDDEN_ADDRESS.*169\.254\.169\.254/);
    expect(byName.wrong).toMatchObject({ status: 'error', code: 'UPLOAD_FAILED' });
    expect(byName.wrong?.message).toMatch(/AUTHENTICATION_FAILED.*refused the password of user "pw"/);
    expect(byName.spoofed?.message).toMatch(/HOST_KEY_MISMATCH/);
    expect(JSON.stringify(byName)).not.toContain(password);
    // Only the two tasks aimed at the test server connected.
    expect(sftp.connections - connectionsBefore).toBe(2);
  });

  it('answers 422 naming password when neither password nor private_key is given', async () => {
    const res = await fetch(`${platform.baseUrl}/v2/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tasks: { get: { operation: 'import/sftp', host: sftp.host, username: 'pw', file: 'x.txt' } } }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { code: string; errors: Record<string, string[]> };
    expect(body.code).toBe('INVALID_DATA');
    expect(body.errors).toEqual({ 'tasks.get.password': ['give password or private_key'] });
    await expect(cc.jobs.create({ tasks: { get: { operation: 'export/sftp', input: 'x', host: sftp.host, username: 'pw' } } } as never)).rejects.toThrow();
  });

  it('hides password, private_key and passphrase when a task is read back with its payload', async () => {
    const tasks = await cc.tasks.all({ 'filter[operation]': 'import/sftp', include: 'payload', per_page: 100 } as never);
    const text = JSON.stringify(tasks);
    expect(text).toContain('[hidden]');
    for (const secret of [password, passphrase, userKey.private.split('\n')[1]!]) expect(text).not.toContain(secret);
  });
});

describe('export/openstack and import/openstack', () => {
  it('round trip through Keystone v3 and Swift: same bytes, by file and by file_prefix', async () => {
    const args = { auth_url: swift.authUrl, username: 'alice', password: swiftPassword, region: 'RegionOne', container: 'files', project_name: 'demo' };
    const body = randomBytes(100 * 1024 + 3);
    const out = await run({
      a: { operation: 'import/base64', file: b64(body), filename: 'cloud.bin' },
      put: { operation: 'export/openstack', input: 'a', ...args, file: 'in/cloud.bin' },
    });
    expect(out.job.status).toBe('finished');
    expect(swift.containers.get('files')?.get('in/cloud.bin')?.data.equals(body)).toBe(true);

    const back = await run({
      one: { operation: 'import/openstack', ...args, file: 'in/cloud.bin', filename: 'one.bin' },
      all: { operation: 'import/openstack', ...args, file_prefix: 'in/' },
      url: { operation: 'export/url', input: ['one', 'all'] },
    });
    expect(back.job.status).toBe('finished');
    const files = await downloads(back.job);
    expect(files['one.bin']!.equals(body)).toBe(true);
    expect(files['cloud.bin']!.equals(body)).toBe(true);
    expect(swift.log.filter((e) => e.kind === 'object').every((e) => e.kind === 'object' && e.authorized)).toBe(true);
  });
});
