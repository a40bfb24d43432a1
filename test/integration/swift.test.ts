/**
 * The OpenStack Swift storage client (lib/adapters/user-storage/swift-storage.ts) against the Keystone v3 + Swift double
 * (test/support/swift-double.ts): the token exchange is checked, object calls need the token, files go
 * out and come back byte for byte, and bad credentials or a catalog pointing somewhere forbidden are
 * refused with messages that say so.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSwiftError, objectStoreEndpoint, SwiftStorage, swiftConnection, tokensUrl, type SwiftArgs } from '#lib/adapters/user-storage/swift-storage.js';
import { readAll } from '../support/streams.js';
import { startSwiftDouble, type SwiftDouble } from '../support/swift-double.js';

const PASSWORD = 'keystone-secret-42';
let swift: SwiftDouble;
const loopback = { policy: { allowLoopback: true } };

beforeAll(async () => {
  swift = await startSwiftDouble(
    { demo: { password: PASSWORD, projects: ['demo-project', 'other'] }, ovh: { password: PASSWORD, domain: 'ovh-domain', projects: ['p1'] } },
    ['photos'],
  );
});
afterAll(async () => {
  await swift?.close();
});

const args = (more: Partial<SwiftArgs> = {}): SwiftArgs => ({
  auth_url: swift.authUrl,
  username: 'demo',
  password: PASSWORD,
  region: 'GRA',
  container: 'photos',
  ...more,
});
const signal = () => AbortSignal.timeout(60_000);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function failureOf(promise: Promise<unknown>) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'expected a failure').toBeDefined();
  return describeSwiftError(err);
}

describe('OpenStack Swift storage client', () => {
  it('exports 4 MB and imports them back byte for byte, with the token on every object call', async () => {
    const bytes = randomBytes(4 * 1024 * 1024 + 17);
    const storage = await SwiftStorage.open(swiftConnection(args()), loopback);
    const before = swift.log.length;
    await storage.put({ name: 'albums/2026/big bin.dat', body: Readable.from([bytes.subarray(0, 1_000_000), bytes.subarray(1_000_000)]), size: bytes.length, contentType: 'application/octet-stream' }, signal());
    expect(swift.containers.get('photos')!.get('albums/2026/big bin.dat')!.data.equals(bytes)).toBe(true);
    const got = await storage.get('albums/2026/big bin.dat', signal());
    expect(got.size).toBe(bytes.length);
    expect(sha256(await readAll(got.body))).toBe(sha256(bytes));
    const calls = swift.log.slice(before);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.every((c) => c.kind === 'object' && c.authorized)).toBe(true);
    storage.close();
  });

  it('lists by prefix across pages', async () => {
    const objects = swift.containers.get('photos')!;
    for (let i = 0; i < 1005; i++) objects.set(`many/${String(i).padStart(4, '0')}.txt`, { data: Buffer.from(String(i)), contentType: 'text/plain' });
    objects.set('manyother.txt', { data: Buffer.from('x'), contentType: 'text/plain' });
    const storage = await SwiftStorage.open(swiftConnection(args()), loopback);
    const names: string[] = [];
    for await (const o of storage.list('many/', signal())) names.push(o.name);
    expect(names).toHaveLength(1005);
    expect(names[0]).toBe('many/0000.txt');
    expect(names.at(-1)).toBe('many/1004.txt');
    const none = [];
    for await (const o of storage.list('nothing-here/', signal())) none.push(o);
    expect(none).toEqual([]);
  });

  it('scopes the token to a named project in a named domain', async () => {
    const storage = await SwiftStorage.open(swiftConnection({ ...args({ username: 'ovh', domain: 'ovh-domain', project_name: 'p1' }) }), loopback);
    const info = await failureOf(storage.get('absent.bin', signal()));
    expect(info).toMatchObject({ code: 'NOT_FOUND', status: 404, transient: false });
  });

  it('refuses a wrong password: not retryable, the message names the user and not the password', async () => {
    const info = await failureOf(SwiftStorage.open(swiftConnection(args({ password: 'not-the-password' })), loopback));
    expect(info).toMatchObject({ code: 'AUTHENTICATION_FAILED', status: 401, transient: false });
    expect(info.message).toContain('"demo"');
    expect(info.message).not.toContain('not-the-password');
    expect(swift.log.at(-1)).toEqual({ kind: 'token', user: 'demo', ok: false });
  });

  it('names the regions there are when the region has no endpoint', async () => {
    const info = await failureOf(SwiftStorage.open(swiftConnection(args({ region: 'Mars' })), loopback));
    expect(info).toMatchObject({ code: 'REGION_NOT_FOUND', transient: false });
    expect(info.message).toContain('RegionOne, GRA');
  });

  it('refuses an object-store endpoint in the catalog that points to a forbidden address', async () => {
    swift.catalogUrl = 'http://169.254.169.254/v1/AUTH_demo-project';
    try {
      const info = await failureOf(SwiftStorage.open(swiftConnection(args()), loopback));
      expect(info).toMatchObject({ code: 'FORBIDDEN_ADDRESS', transient: false });
      expect(info.message).toContain('169.254.169.254');
    } finally {
      swift.catalogUrl = undefined;
    }
  });

  it('refuses an auth_url on a forbidden address without contacting it', async () => {
    const before = swift.log.length;
    const info = await failureOf(SwiftStorage.open(swiftConnection(args()), { policy: {} }));
    expect(info).toMatchObject({ code: 'FORBIDDEN_ADDRESS', transient: false });
    expect(info.message).toContain('127.0.0.1');
    expect(swift.log.length).toBe(before);
  });

  it('object calls without a valid token are refused by the double', async () => {
    const res = await fetch(`${swift.storageUrl('demo-project')}/photos/x`, { headers: { 'x-auth-token': 'forged' } });
    expect(res.status).toBe(401);
  });

  it('reads auth URLs with or without their version, and only public endpoints', () => {
    expect(tokensUrl('https://auth.example.net/v3')).toBe('https://auth.example.net/v3/auth/tokens');
    expect(tokensUrl('https://auth.example.net:5000/')).toBe('https://auth.example.net:5000/v3/auth/tokens');
    expect(tokensUrl('https://auth.example.net/identity/v2.0')).toBe('https://auth.example.net/identity/v3/auth/tokens');
    expect(tokensUrl('https://auth.example.net/v3/auth/tokens')).toBe('https://auth.example.net/v3/auth/tokens');
    const catalog = [{ type: 'object-store', endpoints: [{ interface: 'internal', region_id: 'A', url: 'http://internal/' }, { interface: 'public', region_id: 'A', url: 'https://swift.example/v1/AUTH_x/' }] }];
    expect(objectStoreEndpoint(catalog, 'A')).toBe('https://swift.example/v1/AUTH_x');
  });
});
