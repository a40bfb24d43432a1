/**
 * The file API through the official `cloudconvert` SDK against the whole platform (serverless-offline,
 * queues, consumers, object storage), as a user of the SDK would drive it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'file-api-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;

/** A server on loopback that must never be reached by the service (loopback is not allowed). */
let target: Server;
let targetHits = 0;
/** The one loopback host the service may reach (FETCH_ALLOW_HOSTS), which serves a file or redirects. */
let allowed: Server;
let redirectTo = '';
const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#2a7' } }).png().toBuffer();
  target = createServer((_req, res) => {
    targetHits++;
    res.end('internal secret');
  });
  allowed = createServer((req, res) => {
    if (req.url === '/redirect') res.writeHead(302, { location: redirectTo }).end();
    else if (req.url === '/snapshot') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(png);
    else res.writeHead(200, { 'content-disposition': 'attachment; filename="public.txt"' }).end('public data');
  });
  const [targetPort, allowedPort] = [await listen(target), await listen(allowed)];
  process.env.TARGET_PORT = String(targetPort);
  process.env.ALLOWED_PORT = String(allowedPort);
  platform = await startEmulator({
    dataDir,
    output: e2eOutput,
    env: { LOG_LEVEL: 'warn', FETCH_ALLOW_HOSTS: `127.0.0.1:${allowedPort}` },
  });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
});
afterAll(async () => {
  await platform?.stop();
  target?.close();
  allowed?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) % 256));
/** A PNG (made in beforeAll), also served by the allowed host at /snapshot with a type that says nothing. */
let png: Buffer;

describe('jobs through the cloudconvert SDK', () => {
  it('import/base64 → export/url: wait, download, the same bytes', async () => {
    const created = await cc.jobs.create({
      tag: 'e2e',
      tasks: {
        'import-it': { operation: 'import/base64', file: bytes.toString('base64'), filename: 'data.bin' },
        'export-it': { operation: 'export/url', input: 'import-it' },
      },
    });
    expect(created.status).toMatch(/waiting|processing/);
    expect(created.tasks).toHaveLength(2);

    const job = await cc.jobs.wait(created.id);
    expect(job.status).toBe('finished');
    const [file] = cc.jobs.getExportUrls(job);
    expect(file?.filename).toBe('data.bin');
    const download = await fetch(file!.url!);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    expect(download.headers.get('content-disposition')).toContain('attachment');
  });

  it("export URLs are the service's: a redirect to a storage URL of five minutes, HEAD included", async () => {
    const job = await cc.jobs.wait(
      (
        await cc.jobs.create({
          tasks: {
            raw: { operation: 'import/raw', file: 'redirected', filename: 'r.txt' },
            out: { operation: 'export/url', input: 'raw' },
          },
        })
      ).id,
    );
    const url = cc.jobs.getExportUrls(job)[0]!.url!;
    expect(url.startsWith(`${platform.baseUrl}/v2/files/`)).toBe(true);
    const locations: Record<string, URL> = {};
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(url, { method, redirect: 'manual' });
      expect(res.status).toBe(302);
      const location = (locations[method] = new URL(res.headers.get('location')!));
      expect(location.origin).toBe(platform.endpoints.s3);
      expect(location.searchParams.get('X-Amz-Expires')).toBe('300');
      const followed = await fetch(location, { method });
      expect(followed.status).toBe(200);
      expect(followed.headers.get('content-length')).toBe('10');
    }
    // The HEAD was presigned for HEAD (the method is part of the signature), unless the second changed.
    if (locations.GET!.searchParams.get('X-Amz-Date') === locations.HEAD!.searchParams.get('X-Amz-Date')) {
      expect(locations.HEAD!.searchParams.get('X-Amz-Signature')).not.toBe(locations.GET!.searchParams.get('X-Amz-Signature'));
    }
    const tampered = await fetch(url.replace(/signature=[0-9a-f]/, 'signature=x'), { redirect: 'manual' });
    expect(tampered.status).toBe(403);
    expect(await tampered.json()).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('rejects a job without tasks with 422 and errors.tasks', async () => {
    const res = await fetch(`${platform.baseUrl}/v2/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { code: string; errors: Record<string, string[]> };
    expect(body.code).toBe('INVALID_DATA');
    expect(body.errors.tasks).toBeDefined();
    await expect(cc.jobs.create({ tasks: {} } as never)).rejects.toThrow();
  });

  it('names the offending task fields: unknown input, unknown operation, cycles', async () => {
    const res = await fetch(`${platform.baseUrl}/v2/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        tasks: {
          a: { operation: 'export/url', input: 'nope' },
          b: { operation: 'no/such-op' },
          c: { operation: 'import/raw', file: 'x' },
        },
      }),
    });
    expect(res.status).toBe(422);
    const { errors } = (await res.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(errors).sort()).toEqual(['tasks.a.input', 'tasks.b.operation', 'tasks.c.filename']);
  });

  it('uploads a 50 MB file named "my report.pdf" with tasks.upload, straight to storage', async () => {
    const created = await cc.jobs.create({
      tasks: { up: { operation: 'import/upload' }, out: { operation: 'export/url', input: 'up' } },
    });
    const upload = created.tasks.find((t) => t.name === 'up')!;
    expect(upload.status).toBe('waiting');
    expect(upload.result?.form?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const size = 50 * 1024 * 1024;
    const sent = createHash('md5');
    const chunks = function* () {
      for (let i = 0; i < size / 65536; i++) {
        const chunk = Buffer.alloc(65536, i % 251);
        chunk.writeUInt32BE(i, 0);
        sent.update(chunk);
        yield chunk;
      }
    };
    await cc.tasks.upload(upload, Readable.from(chunks()), 'my report.pdf', size);

    const job = await cc.jobs.wait(created.id);
    expect(job.status).toBe('finished');
    const done = job.tasks.find((t) => t.name === 'up')!;
    expect(done.result?.files?.[0]).toMatchObject({ filename: 'my report.pdf', size });
    const [file] = cc.jobs.getExportUrls(job);
    expect(file?.filename).toBe('my report.pdf');
    const download = await fetch(file!.url!);
    const received = createHash('md5');
    for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) received.update(chunk);
    expect(received.digest('hex')).toBe(sent.digest('hex'));
  });

  it('refuses an upload to a form whose signature was tampered with', async () => {
    const task = await cc.tasks.create('import/upload', {});
    const form = task.result!.form!;
    const body = new FormData();
    for (const [k, v] of Object.entries(form.parameters as Record<string, string>)) {
      body.append(k, k === 'X-Amz-Signature' || k === 'x-amz-signature' ? '0'.repeat(64) : String(v));
    }
    body.append('file', new Blob(['x']), 'x.txt');
    const res = await fetch(form.url, { method: 'POST', body });
    expect(res.status).toBe(403);
    expect((await cc.tasks.get(task.id)).status).toBe('waiting');
  });

  it('cancels a waiting task', async () => {
    const task = await cc.tasks.create('import/upload', {});
    expect(task.status).toBe('waiting');
    const cancelled = await cc.tasks.cancel(task.id);
    expect(cancelled.status).toBe('error');
    expect(cancelled.code).toBe('CANCELLED');
  });

  it('deleting the job makes its export URL stop serving the file', async () => {
    const job = await cc.jobs.wait(
      (
        await cc.jobs.create({
          tasks: {
            raw: { operation: 'import/raw', file: 'hello, world', filename: 'hello.txt' },
            url: { operation: 'export/url', input: ['raw'], inline: true },
          },
        })
      ).id,
    );
    const [file] = cc.jobs.getExportUrls(job);
    const before = await fetch(file!.url!);
    expect(await before.text()).toBe('hello, world');
    expect(before.headers.get('content-disposition')).toContain('inline');
    await cc.jobs.delete(job.id);
    const after = await fetch(file!.url!);
    expect(after.status).toBe(404);
    await expect(cc.jobs.get(job.id)).rejects.toThrow();
  });

  it('archives several files into one zip URL', async () => {
    const job = await cc.jobs.wait(
      (
        await cc.jobs.create({
          tasks: {
            one: { operation: 'import/raw', file: 'first', filename: 'one.txt' },
            two: { operation: 'import/raw', file: 'second', filename: 'two.txt' },
            out: { operation: 'export/url', input: ['one', 'two'], archive_multiple_files: true },
          },
        })
      ).id,
    );
    expect(job.status).toBe('finished');
    const files = cc.jobs.getExportUrls(job);
    expect(files).toHaveLength(1);
    const zip = Buffer.from(await (await fetch(files[0]!.url!)).arrayBuffer());
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
    expect(zip.includes(Buffer.from('one.txt'))).toBe(true);
    expect(zip.includes(Buffer.from('two.txt'))).toBe(true);
  });

  it('fails the dependants of a failed task with INPUT_TASK_FAILED', async () => {
    const job = await cc.jobs.wait(
      (
        await cc.jobs.create({
          tasks: {
            fetch: { operation: 'import/url', url: 'http://127.0.0.1:9/nothing.bin' },
            out: { operation: 'export/url', input: 'fetch' },
          },
        })
      ).id,
    );
    expect(job.status).toBe('error');
    const byName = Object.fromEntries(job.tasks.map((t) => [t.name, t]));
    expect(byName.fetch?.status).toBe('error');
    expect(byName.out).toMatchObject({ status: 'error', code: 'INPUT_TASK_FAILED' });
  });
});

describe('content types from upload to download', () => {
  it('an uploaded PNG, PDF and MP4 download with their own types; PNG bytes named without an extension too, however they came in', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([200, 100]);
    const pdf = Buffer.from(await doc.save());
    // The start of an MP4: its ftyp box (the name types it; a player would want the rest).
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom\0\0\x02\0isomiso2', 'latin1'), Buffer.alloc(64)]);
    const uploads: Record<string, [Buffer, string]> = { png: [png, 'input.png'], pdf: [pdf, 'paper.pdf'], mp4: [mp4, 'clip.mp4'], photo: [png, 'photo'] };
    const created = await cc.jobs.create({
      tasks: {
        ...Object.fromEntries(Object.keys(uploads).map((name) => [name, { operation: 'import/upload' }])),
        picture: { operation: 'import/base64', file: png.toString('base64'), filename: 'picture' },
        snapshot: { operation: 'import/url', url: `http://127.0.0.1:${process.env.ALLOWED_PORT}/snapshot` },
        out: { operation: 'export/url', input: [...Object.keys(uploads), 'picture', 'snapshot'] },
      },
    } as never);
    for (const [name, [body, filename]] of Object.entries(uploads)) {
      await cc.tasks.upload(created.tasks.find((t) => t.name === name)!, body, filename, body.length);
    }
    const job = await cc.jobs.wait(created.id);
    expect(job.status).toBe('finished');
    const served = await Promise.all(
      cc.jobs.getExportUrls(job).map(async (f) => {
        const res = await fetch(f.url!);
        const body = Buffer.from(await res.arrayBuffer());
        return [f.filename, res.headers.get('content-type'), body.length];
      }),
    );
    expect(served).toEqual([
      ['input.png', 'image/png', png.length],
      ['paper.pdf', 'application/pdf', pdf.length],
      ['clip.mp4', 'video/mp4', mp4.length],
      ['photo', 'image/png', png.length],
      ['picture', 'image/png', png.length],
      ['snapshot', 'image/png', png.length],
    ]);
  });
});

describe('import/url never reaches internal addresses', () => {
  const importJob = async (url: string) =>
    cc.jobs.wait((await cc.jobs.create({ tasks: { fetch: { operation: 'import/url', url } } })).id);

  it('downloads from an allowed host, with the name from Content-Disposition', async () => {
    const job = await importJob(`http://127.0.0.1:${process.env.ALLOWED_PORT}/file`);
    expect(job.status).toBe('finished');
    expect(job.tasks[0]!.result?.files?.[0]).toMatchObject({ filename: 'public.txt', size: 11 });
  });

  it.each([
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['loopback', () => `http://127.0.0.1:${process.env.TARGET_PORT}/`],
    ['an IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${process.env.TARGET_PORT}/`],
    ['a hexadecimal loopback', () => `http://0x7f.0.0.1:${process.env.TARGET_PORT}/`],
    ['a redirect from an allowed host to loopback', () => {
      redirectTo = `http://127.0.0.1:${process.env.TARGET_PORT}/`;
      return `http://127.0.0.1:${process.env.ALLOWED_PORT}/redirect`;
    }],
    ['a redirect to the metadata address', () => {
      redirectTo = 'http://169.254.169.254/latest/meta-data/';
      return `http://127.0.0.1:${process.env.ALLOWED_PORT}/redirect`;
    }],
  ])('ends the task in error for %s, and nothing reaches the target', async (_label, url) => {
    const hits = targetHits;
    const job = await importJob(url());
    expect(job.status).toBe('error');
    expect(job.tasks[0]).toMatchObject({ status: 'error', code: 'DOWNLOAD_FAILED' });
    expect(job.tasks[0]!.message).toMatch(/Refusing|not allowed|forbidden/i);
    expect(targetHits).toBe(hits);
  });
});
