/**
 * A task's `percent` as a user of the `cloudconvert` SDK sees it on GET /v2/tasks/{id}, against the
 * whole platform: an import from a slow origin (a local server sending a large body at a bounded rate,
 * the one loopback host the service may reach) shows rising values between 0 and 100 while it runs,
 * and 100 once finished.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '#lib/local/platform.js';
import { cloudConvertClient } from '../support/cloudconvert.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'task-progress-e2e-'));
let platform: Platform;
let cc: ReturnType<typeof cloudConvertClient>;
let origin: Server;
let originUrl = '';

/** The slow file: 6 MiB sent at about 1.5 MiB a second, so at least four seconds of download. */
const SIZE = 6 * 1024 * 1024;
const CHUNK = 64 * 1024;
const CHUNKS_PER_SECOND = 24;

beforeAll(async () => {
  origin = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(SIZE) });
    let sent = 0;
    const timer = setInterval(() => {
      const n = Math.min(CHUNK, SIZE - sent);
      res.write(Buffer.alloc(n, sent % 251));
      sent += n;
      if (sent >= SIZE) {
        clearInterval(timer);
        res.end();
      }
    }, 1000 / CHUNKS_PER_SECOND);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', () => resolve()));
  const port = (origin.address() as AddressInfo).port;
  originUrl = `http://127.0.0.1:${port}/slow.bin`;
  platform = await startPlatform({
    dataDir,
    output: process.env.E2E_VERBOSE ? 'inherit' : 'ignore',
    env: { LOG_LEVEL: 'warn', FETCH_ALLOW_HOSTS: `127.0.0.1:${port}` },
  });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
});
afterAll(async () => {
  await platform?.stop();
  origin?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('task progress', () => {
  it('an import/url from a slow origin shows a rising percent between 0 and 100 while it runs, and 100 when finished', async () => {
    const job = await cc.jobs.create({ tasks: { fetch: { operation: 'import/url', url: originUrl } } });
    const taskId = job.tasks[0]!.id;
    const running: number[] = [];
    // The SDK's Task type has no `percent` (the API's task object has it: the spec, and the SDK's recorded responses).
    const read = async () => (await cc.tasks.get(taskId)) as Awaited<ReturnType<typeof cc.tasks.get>> & { percent: number };
    let task = await read();
    while (task.status === 'waiting' || task.status === 'processing') {
      if (task.status === 'processing') running.push(task.percent);
      await new Promise((resolve) => setTimeout(resolve, 200));
      task = await read();
    }
    expect(task).toMatchObject({ status: 'finished', percent: 100 });
    expect(task.result!.files![0]!.size).toBe(SIZE);
    // Never going down; at least two different values strictly between 0 and 100 on the way.
    expect(running).toEqual([...running].sort((a, b) => a - b));
    const between = [...new Set(running.filter((p) => p > 0 && p < 100))];
    expect(between.length).toBeGreaterThanOrEqual(2);
  });
});
