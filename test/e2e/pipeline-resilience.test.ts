/**
 * The pipeline's promises at platform scale: jobs survive the functions' process dying mid-run, and
 * a large file moves through the consumers with bounded memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { largeFileRun } from '../../bench/large-file.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { e2eOutput } from '../support/platform-output.js';

describe('jobs across a crash of the functions process', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'resilience-'));
  let platform: Emulator | undefined;
  let source: Server | undefined;
  afterAll(async () => {
    await platform?.stop();
    source?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes all 20 jobs after a restart: none stuck, none lost', async () => {
    // A slow download keeps imports running when the process dies.
    source = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      let n = 0;
      const timer = setInterval(() => {
        res.write('x'.repeat(1024));
        if (++n === 20) {
          clearInterval(timer);
          res.end();
        }
      }, 100);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => source!.listen(0, '127.0.0.1', () => resolve()));
    const port = (source.address() as AddressInfo).port;
    const env = { LOG_LEVEL: 'warn', FETCH_ALLOW_HOSTS: `127.0.0.1:${port}`, STEP_LEASE_SECONDS: '4' };
    platform = await startEmulator({ dataDir, output: e2eOutput, env });
    let cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const job = await cc.jobs.create({
        tag: `crash-${i}`,
        tasks: {
          fetch: { operation: 'import/url', url: `http://127.0.0.1:${port}/slow-${i}.txt` },
          zip: { operation: 'archive', input: 'fetch', output_format: 'zip' },
          out: { operation: 'export/url', input: 'zip' },
        },
      });
      ids.push(job.id);
    }
    await new Promise((r) => setTimeout(r, 1500));
    const before = await Promise.all(ids.map((id) => cc.jobs.get(id)));
    expect(before.some((j) => j.status !== 'finished')).toBe(true);

    await platform.stop({ abrupt: true });
    platform = await startEmulator({ dataDir, output: e2eOutput, env });
    cc = cloudConvertClient(platform.apiKey, platform.baseUrl);

    // Usually seconds; a run whose message was lost is re-queued by the sweeper (every minute locally,
    // once its lease has lapsed 30 s), so allow a few sweeps.
    const deadline = Date.now() + 180_000;
    let jobs = await Promise.all(ids.map((id) => cc.jobs.get(id)));
    while (jobs.some((j) => j.status !== 'finished' && j.status !== 'error') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      jobs = await Promise.all(ids.map((id) => cc.jobs.get(id)));
    }
    const summary = jobs.map((j) => `${j.status}:${j.tasks.map((t) => `${t.name}=${t.status}${t.code ? `(${t.code})` : ''}`).join(',')}`);
    expect(summary.filter((s) => !s.startsWith('finished'))).toEqual([]);
    for (const job of jobs) {
      expect(cc.jobs.getExportUrls(job)).toHaveLength(1);
      expect(job.tasks.find((t) => t.name === 'fetch')!.result?.files?.[0]?.size).toBe(20 * 1024);
    }
  }, 300_000);
});

describe('a large file through the consumers', () => {
  it('moves 256 MiB through import/url and export/url intact, each consumer under 256 MiB of memory', async () => {
    const run = await largeFileRun(256);
    expect(run.intact).toBe(true);
    expect(run.importPeakRssMiB).toBeLessThan(256);
    expect(run.exportPeakRssMiB).toBeLessThan(256);
    // A hang guard, not a speed check: 25 s on two idle cores, minutes when the machine is busy.
  }, 600_000);
});
