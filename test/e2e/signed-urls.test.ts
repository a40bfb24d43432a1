/**
 * Signed URLs against the whole platform: bases made over HTTP (the Node SDK has no call for them),
 * URLs made by the official SDK's `signedUrls.sign`, followed with fetch as a browser or an <img>
 * would. Requests wait 2 s here (SIGNED_URL_WAIT_SECONDS) so that the re-wait redirect shows.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { callApi } from '../support/file-api.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'signed-urls-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let base: { id: string; url: string; signing_secret: string };
let png: Buffer;
/** Answers after 5 s: an import from it outlasts one signed-URL wait. */
let slow: Server;
let slowUrl: string;

beforeAll(async () => {
  platform = await startEmulator({
    dataDir,
    output: e2eOutput,
    env: { LOG_LEVEL: 'warn', ALLOW_LOOPBACK_FETCH: 'true', SIGNED_URL_WAIT_SECONDS: '2' },
  });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c00' } }).png().toBuffer();
  slow = createServer((_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('slow file'), 5000));
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow.txt`;
  const res = await api('POST', 'signed-urls', {});
  expect(res.status).toBe(201);
  base = res.body.data;
});
afterAll(async () => {
  await platform?.stop();
  slow?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function api(method: string, route: string, body?: unknown, key = platform.apiKey) {
  return callApi<any>(platform.baseUrl, key, method, `/v2/${route}`, body);
}

/** png → jpg; the tag makes the base64 hold several `+` and `/`, of which the SDK replaces only the first. */
const convertJob = (tag = '>>>???>>>???') => ({
  tag,
  tasks: {
    in: { operation: 'import/base64', file: png.toString('base64'), filename: 'dot.png' },
    jpg: { operation: 'convert', input: 'in', output_format: 'jpg' },
    out: { operation: 'export/url', input: 'jpg' },
  },
});

const sign = (job: unknown, cacheKey: string | null = null) => cc.signedUrls.sign(base.url, base.signing_secret, job as never, cacheKey);

const taskCount = async () => {
  const res = await api('GET', 'tasks?per_page=1000');
  return (res.body.data as unknown[]).length;
};

/** Follows the signed URL's own redirects (re-waits) by hand, up to the first redirect elsewhere. */
async function resolve(url: string): Promise<{ location: string; hops: string[] }> {
  const hops: string[] = [];
  let next = url;
  for (let i = 0; i < 20; i++) {
    const res = await fetch(next, { redirect: 'manual' });
    await res.arrayBuffer();
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    if (!location.startsWith(base.url)) return { location, hops };
    hops.push(location);
    next = location;
  }
  throw new Error('the signed URL kept redirecting to itself');
}

describe('signed URL bases', () => {
  it('are created with a URL under /s/ and a signing secret shown once, then listed without it and deleted', async () => {
    expect(base.url).toBe(`${platform.baseUrl}/s/${base.id}`);
    expect(base.signing_secret.length).toBeGreaterThanOrEqual(32);
    const list = await api('GET', 'signed-urls');
    const listed = (list.body.data as Array<Record<string, unknown>>).find((b) => b.id === base.id);
    expect(listed).toMatchObject({ id: base.id, url: base.url });
    expect(listed).not.toHaveProperty('signing_secret');

    const other = (await api('POST', 'signed-urls', {})).body.data;
    const url = cc.signedUrls.sign(other.url, other.signing_secret, convertJob() as never, null);
    expect((await api('DELETE', `signed-urls/${other.id}`)).status).toBe(204);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(404);
    expect((await api('DELETE', `signed-urls/${other.id}`)).status).toBe(404);
  });
});

describe('a signed URL made by the SDK', () => {
  it('converts the file and redirects to it', async () => {
    const res = await fetch(sign(convertJob()));
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(bytes).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.width).toBe(8);
  });

  it('is refused when a character of the job or of the signature changes, or the signature is missing', async () => {
    const url = sign(convertJob());
    const at = url.indexOf('job=') + 10;
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const before = await taskCount();

    const changedJob = await fetch(flip(url, at), { redirect: 'manual' });
    expect(changedJob.status).toBe(403);
    expect(await changedJob.json()).toMatchObject({ code: 'FORBIDDEN' });
    const changedSignature = await fetch(flip(url, url.length - 5), { redirect: 'manual' });
    expect(changedSignature.status).toBe(403);
    const unsigned = await fetch(url.slice(0, url.indexOf('&s=')), { redirect: 'manual' });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await taskCount()).toBe(before);
  });

  it('answers a second call with the same cache key from the cache, running no task', async () => {
    const url = sign(convertJob('cached'), 'cache-key-1');
    const first = await resolve(url);
    const before = await taskCount();
    const second = await resolve(url);
    expect(second.location).toBe(first.location);
    expect(await taskCount()).toBe(before);
    // The same job with another key runs again.
    const other = await resolve(sign(convertJob('cached'), 'cache-key-2'));
    expect(other.location).not.toBe(first.location);
    expect(await taskCount()).toBe(before + 3);
  });

  it('starts one job for concurrent first requests with the same cache key', async () => {
    const url = sign(convertJob('together'), 'cache-key-3');
    const before = await taskCount();
    const answers = await Promise.all([resolve(url), resolve(url), resolve(url)]);
    expect(new Set(answers.map((a) => a.location)).size).toBe(1);
    expect(await taskCount()).toBe(before + 3);
  });

  it('sends the client back to the same URL while the job outlasts the wait, and the client then gets the same job', async () => {
    const job = { tasks: { in: { operation: 'import/url', url: slowUrl }, out: { operation: 'export/url', input: 'in' } } };
    const url = sign(job);
    const before = await taskCount();
    const { location, hops } = await resolve(url);
    expect(hops.length).toBeGreaterThan(0);
    for (const hop of hops) expect(hop.startsWith(`${url}&run=`)).toBe(true);
    expect(await taskCount()).toBe(before + 2);
    expect(await (await fetch(location)).text()).toBe('slow file');
  });

  it('refuses a job that does not validate, or has no export/url task, with 422 under its field', async () => {
    const noTasks = await fetch(sign({ tasks: {} }), { redirect: 'manual' });
    expect(noTasks.status).toBe(422);
    expect((await noTasks.json()).errors).toHaveProperty('tasks');
    const noExport = await fetch(sign({ tasks: { in: { operation: 'import/raw', file: 'x', filename: 'x.txt' } } }), { redirect: 'manual' });
    expect(noExport.status).toBe(422);
    expect((await noExport.json()).errors).toHaveProperty('job');
    // Signed, but not base64 JSON.
    const bad = `${base.url}?job=%%%`;
    const badUrl = `${bad}&s=${createHmac('sha256', base.signing_secret).update(bad).digest('hex')}`;
    const notJson = await fetch(badUrl, { redirect: 'manual' });
    expect(notJson.status).toBe(422);
    expect((await notJson.json()).errors).toHaveProperty('job');
  });
});
