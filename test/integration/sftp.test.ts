/**
 * The SFTP storage client (lib/adapters/user-storage/sftp-storage.ts) against an SFTP server started here (ssh2's Server on
 * a temporary folder, checking passwords and key signatures for real): files go out and come back
 * byte for byte, through password and key authentication; bad credentials, a wrong host key and
 * forbidden addresses are refused with messages that say so.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ssh2 from 'ssh2';
import { freePort } from '../../local/backends.js';
import { SftpStorage, describeSftpError, sftpConnection, type SftpArgs, type SftpOpenOptions } from '#lib/adapters/user-storage/sftp-storage.js';
import { readAll } from '../support/streams.js';
import { ed25519KeyPair, startSftpServer, type SftpTestServer } from '../support/sftp-server.js';

const { utils } = ssh2;
const PASSWORD = 'correct horse battery staple';
const PASSPHRASE = 'open sesame, please';
const ed25519 = ed25519KeyPair({ passphrase: PASSPHRASE, cipher: 'aes256-ctr', rounds: 4 });
const rsa = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'pkcs1', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
});
const rsaPublicSsh = () => {
  const key = utils.parseKey(rsa.privateKey);
  if (key instanceof Error || Array.isArray(key)) throw new Error('test key');
  return `ssh-rsa ${key.getPublicSSH().toString('base64')}`;
};

let server: SftpTestServer;
const loopback: SftpOpenOptions = { policy: { allowLoopback: true } };

beforeAll(async () => {
  server = await startSftpServer({
    alice: { password: PASSWORD },
    bob: { publicKeys: [ed25519.public, rsaPublicSsh()] },
  });
});
afterAll(async () => {
  await server?.close();
});

const args = (more: Partial<SftpArgs>): SftpArgs => ({ host: server.host, port: server.port, username: 'alice', ...more });
const signal = () => AbortSignal.timeout(60_000);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function failureOf(promise: Promise<unknown>) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'expected a failure').toBeDefined();
  return { err, info: describeSftpError(err) };
}

async function roundTrip(storage: SftpStorage, name: string, bytes: Buffer) {
  await storage.put({ name, body: Readable.from(chunks(bytes)), size: bytes.length }, signal());
  const got = await storage.get(name, signal());
  return { size: got.size, body: await readAll(got.body) };
}

/** The bytes in irregular slices, as a network stream delivers them. */
function* chunks(bytes: Buffer) {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = [65_536, 1_000, 200_000, 7][i % 4]!;
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

describe('SFTP storage client', () => {
  it('exports 5 MB with a password and imports them back byte for byte', async () => {
    const bytes = randomBytes(5 * 1024 * 1024 + 123);
    let fingerprint = '';
    const storage = await SftpStorage.open(sftpConnection(args({ password: PASSWORD })), { ...loopback, onHostKey: (f) => (fingerprint = f) });
    try {
      const back = await roundTrip(storage, 'uploads/2026/big.bin', bytes);
      expect(back.size).toBe(bytes.length);
      expect(sha256(back.body)).toBe(sha256(bytes));
      // The server's own copy (parent folders were created).
      expect(sha256(await readFile(join(server.root, 'uploads/2026/big.bin')))).toBe(sha256(bytes));
    } finally {
      storage.close();
    }
    expect(fingerprint).toBe(server.hostKeyFingerprint);
    expect(server.auth.at(-1)).toEqual({ username: 'alice', method: 'password', accepted: true });
  });

  it('signs in with an encrypted OpenSSH ed25519 key and its passphrase', async () => {
    const bytes = randomBytes(300_000);
    const storage = await SftpStorage.open(sftpConnection({ ...args({ username: 'bob' }), private_key: ed25519.private, passphrase: PASSPHRASE }), loopback);
    try {
      const back = await roundTrip(storage, '/keyed/ed25519.bin', bytes);
      expect(back.body.equals(bytes)).toBe(true);
    } finally {
      storage.close();
    }
    expect(server.auth.at(-1)).toEqual({ username: 'bob', method: 'publickey', accepted: true });
  });

  it('signs in with a PEM RSA key pasted with \\n escapes', async () => {
    const bytes = randomBytes(70_000);
    const pasted = rsa.privateKey.replace(/\n/g, '\\n');
    const storage = await SftpStorage.open(sftpConnection({ ...args({ username: 'bob' }), private_key: pasted }), loopback);
    try {
      expect((await roundTrip(storage, 'rsa.bin', bytes)).body.equals(bytes)).toBe(true);
    } finally {
      storage.close();
    }
  });

  it('lists the files under a folder, sub-folders included, and nothing beside it', async () => {
    await mkdir(join(server.root, 'in/sub'), { recursive: true });
    await writeFile(join(server.root, 'in/a.txt'), 'a');
    await writeFile(join(server.root, 'in/sub/b.txt'), 'bb');
    await writeFile(join(server.root, 'inside.txt'), 'not under in/');
    const storage = await SftpStorage.open(sftpConnection(args({ password: PASSWORD })), loopback);
    try {
      const listed = [];
      for await (const o of storage.list('in/', signal())) listed.push(o);
      expect(listed).toEqual([
        { name: 'in/a.txt', size: 1 },
        { name: 'in/sub/b.txt', size: 2 },
      ]);
    } finally {
      storage.close();
    }
  });

  it('refuses a wrong password: not retryable, and the message names the user but not the password', async () => {
    const before = server.auth.length;
    const { info } = await failureOf(SftpStorage.open(sftpConnection(args({ password: 'wrong-password-123' })), loopback));
    expect(info).toMatchObject({ code: 'AUTHENTICATION_FAILED', transient: false });
    expect(info.message).toContain('"alice"');
    expect(info.message).not.toContain('wrong-password-123');
    expect(server.auth.slice(before).some((a) => a.method === 'password' && !a.accepted)).toBe(true);
  });

  it('refuses a key the server does not know, and an encrypted key without its passphrase', async () => {
    const stranger = ed25519KeyPair();
    const denied = await failureOf(SftpStorage.open(sftpConnection({ ...args({ username: 'bob' }), private_key: stranger.private }), loopback));
    expect(denied.info).toMatchObject({ code: 'AUTHENTICATION_FAILED', transient: false });
    const locked = await failureOf(SftpStorage.open(sftpConnection({ ...args({ username: 'bob' }), private_key: ed25519.private }), loopback));
    expect(locked.info).toMatchObject({ code: 'INVALID_PRIVATE_KEY', transient: false });
    expect(locked.info.message).toMatch(/passphrase/);
  });

  it('checks the host key when host_key is given', async () => {
    const ok = await SftpStorage.open(sftpConnection(args({ password: PASSWORD, host_key: server.hostKeyFingerprint })), loopback);
    ok.close();
    const byLine = await SftpStorage.open(sftpConnection(args({ password: PASSWORD, host_key: server.hostPublicKey })), loopback);
    byLine.close();
    const other = ed25519KeyPair().public;
    const { info } = await failureOf(SftpStorage.open(sftpConnection(args({ password: PASSWORD, host_key: other })), loopback));
    expect(info).toMatchObject({ code: 'HOST_KEY_MISMATCH', transient: false });
  });

  it('refuses forbidden addresses before connecting, naming the host', async () => {
    const metadata = await failureOf(SftpStorage.open(sftpConnection(args({ host: '169.254.169.254', port: 22, password: PASSWORD })), loopback));
    expect(metadata.info).toMatchObject({ code: 'FORBIDDEN_ADDRESS', transient: false });
    expect(metadata.info.message).toContain('169.254.169.254');

    const connections = server.connections;
    for (const host of ['127.0.0.1', 'localhost', '0x7f.1', '[::ffff:127.0.0.1]']) {
      const { info } = await failureOf(SftpStorage.open(sftpConnection(args({ host, password: PASSWORD })), { policy: {} }));
      expect(info, host).toMatchObject({ code: 'FORBIDDEN_ADDRESS', transient: false });
      expect(info.message).toContain(host);
    }
    expect(server.connections).toBe(connections);

    // An allow-list entry for exactly this host and port lets it through.
    const allowed = await SftpStorage.open(sftpConnection(args({ password: PASSWORD })), { policy: { allowHosts: [`127.0.0.1:${server.port}`] } });
    allowed.close();
  });

  it('reports a refused connection as retryable', async () => {
    const port = await freePort();
    const { info } = await failureOf(SftpStorage.open(sftpConnection(args({ port, password: PASSWORD })), loopback));
    expect(info).toMatchObject({ code: 'ECONNREFUSED', transient: true });
  });

  it('reports a missing file by its SFTP status, not retryable', async () => {
    const storage = await SftpStorage.open(sftpConnection(args({ password: PASSWORD })), loopback);
    try {
      const { info } = await failureOf(storage.get('no/such/file.bin', signal()));
      expect(info).toMatchObject({ code: 'NO_SUCH_FILE', transient: false });
    } finally {
      storage.close();
    }
  });

  it('stops an upload when the signal aborts', async () => {
    const storage = await SftpStorage.open(sftpConnection(args({ password: PASSWORD })), loopback);
    try {
      const controller = new AbortController();
      const endless = new Readable({ read() {
        this.push(randomBytes(64 * 1024));
      } });
      setTimeout(() => controller.abort(), 200);
      const { info } = await failureOf(storage.put({ name: 'endless.bin', body: endless, size: 1 }, controller.signal));
      expect(info).toMatchObject({ code: 'ABORTED', transient: false });
    } finally {
      storage.close();
    }
  });

  it('names the argument at fault in the connection arguments', () => {
    expect(() => sftpConnection({ host: 'example.com', username: 'u' })).toThrow(/password or private_key/);
    expect(() => sftpConnection({ host: 'example.com', username: 'u', password: 'p', port: 70000 })).toThrow(/port/);
  });
});
