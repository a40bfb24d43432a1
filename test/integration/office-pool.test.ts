/**
 * Warm LibreOffice (lib/engines/office/pool.ts, worker.ts, warm.ts): conversions reuse a started
 * process, which is replaced after OFFICE_MAX_CONVERSIONS, on a hang and when it ended; a full queue
 * refuses at once with ENGINE_BUSY; two workers convert at once; nothing of one task stays in the
 * worker's folder for the next. The outputs are read with PDF.js, JSZip and mammoth, not LibreOffice.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';
import { afterEach, expect } from 'vitest';
import { EngineFailure } from '#lib/engines/core/errors.js';
import { runLibreOffice } from '#lib/engines/office/libreoffice.js';
import { closeOfficePools, warmPool } from '#lib/engines/office/warm.js';
import { engineCall, type HandCall } from '../support/engine-call.js';
import { pagedDocx } from '../support/paged-docx.js';
import { pdfText } from '../support/pdf-text.js';
import { engine, requires, type Requirement } from '../support/requires.js';

const uno: Requirement = {
  name: 'python3-uno',
  missing: () =>
    spawnSync('/usr/bin/python3', ['-c', 'import uno'], { stdio: 'ignore' }).status === 0 ? undefined : 'python3-uno not found for /usr/bin/python3; install: apt-get install python3-uno',
};
const warm = requires(engine('libreoffice'), uno);

const calls: HandCall<unknown>[] = [];
afterEach(async () => {
  await closeOfficePools();
  for (const c of calls.splice(0)) c.remove();
});

async function docxCall(env: Record<string, string>, marker = 'docx', pages = 2) {
  const hand = engineCall('libreoffice', 'convert', {}, [{ filename: `${marker}.docx`, data: await pagedDocx(pages, marker), format: 'docx' }], env);
  calls.push(hand);
  return hand.call;
}

/** Converts a fresh document to PDF on the pool of `env`; the PDF's text. */
async function convert(env: Record<string, string>, marker = 'docx'): Promise<string> {
  const call = await docxCall(env, marker);
  return pdfText(readFileSync(await runLibreOffice(call, { input: call.inputs[0]!, extension: 'pdf' })));
}

async function poolOf(env: Record<string, string>) {
  return warmPool(await docxCall(env), '/usr/lib/libreoffice')!;
}

/** The pool of `env` has started `starts` workers, and its workers now running have done `conversions`. */
async function expectPool(env: Record<string, string>, starts: number, conversions: number[]) {
  const pool = await poolOf(env);
  expect(pool.starts).toBe(starts);
  expect(pool.workers.map((w) => w.conversions)).toEqual(conversions);
}

/** Every process below `pid` (from /proc). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  for (let todo = [pid]; todo.length; ) {
    const next = children.get(todo.pop()!) ?? [];
    out.push(...next);
    todo.push(...next);
  }
  return out;
}

/** Every file below `dir`, with its path relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(path.join(dir, f)).isFile());
}

const ONE = { OFFICE_POOL_SIZE: '1' };

warm.describe('warm LibreOffice', () => {
  warm.it('converts on a process started once: a second conversion reuses it', async () => {
    expect(await convert(ONE, 'first')).toContain('Page 2 first');
    expect(await convert(ONE, 'second')).toContain('Page 2 second');
    await expectPool(ONE, 1, [2]);
  }, 120_000);

  warm.it('replaces a process after OFFICE_MAX_CONVERSIONS', async () => {
    const env = { ...ONE, OFFICE_MAX_CONVERSIONS: '2' };
    for (const marker of ['one', 'two', 'three']) expect(await convert(env, marker)).toContain(`Page 1 ${marker}`);
    await expectPool(env, 2, [1]);
  }, 120_000);

  warm.it('ends a process that hangs past OFFICE_CONVERSION_SECONDS, and the next conversion works', async () => {
    const env = { ...ONE, OFFICE_CONVERSION_SECONDS: '5' };
    expect(await convert(env, 'before')).toContain('before');
    const pool = await poolOf(env);
    const [worker] = pool.workers;
    const stopped = descendants(worker!.pid!);
    expect(stopped.length).toBeGreaterThan(0);
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    const failure = await convert(env, 'hung').catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(EngineFailure);
    expect(failure).toMatchObject({ code: 'CONVERSION_FAILED', message: expect.stringMatching(/within 5 s/) });
    expect(await convert(env, 'after')).toContain('Page 2 after');
    expect(pool.starts).toBe(2);
    expect(stopped.filter((pid) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '))).toEqual([]);
  }, 120_000);

  warm.it('refuses at once with a retryable ENGINE_BUSY when the queue is full', async () => {
    const env = { ...ONE, OFFICE_QUEUE_LENGTH: '1' };
    const results = await Promise.allSettled(['a', 'b', 'c'].map((m) => convert(env, m)));
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'ENGINE_BUSY', retryable: true, message: expect.stringMatching(/busy/) });
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
  }, 120_000);

  warm.it('runs two conversions at once on two processes', async () => {
    const env = { OFFICE_POOL_SIZE: '2' };
    const texts = await Promise.all([convert(env, 'left'), convert(env, 'right')]);
    expect(texts[0]).toContain('Page 2 left');
    expect(texts[1]).toContain('Page 2 right');
    await expectPool(env, 2, [1, 1]);
  }, 120_000);

  warm.it("leaves nothing of a task in the worker's folder for the next", async () => {
    await convert(ONE, 'secretmarker');
    const [worker] = (await poolOf(ONE)).workers;
    const left = filesBelow(worker!.dir);
    expect(left.filter((f) => f.startsWith('jobs/'))).toEqual([]);
    expect(left.filter((f) => f.includes('secretmarker'))).toEqual([]);
    for (const file of left) expect(readFileSync(path.join(worker!.dir, file)).includes('secretmarker'), file).toBe(false);
  }, 120_000);

  warm.it('takes the export filter --convert-to would, and the filter options', async () => {
    const call = await docxCall(ONE, 'filters', 3);
    const odt = await runLibreOffice(call, { input: call.inputs[0]!, extension: 'odt' });
    const content = await (await JSZip.loadAsync(readFileSync(odt))).file('content.xml')!.async('string');
    expect(content).toContain('Page 3 filters');
    const again = await docxCall(ONE, 'ranged', 3);
    const pdf = await runLibreOffice(again, {
      input: again.inputs[0]!,
      extension: 'pdf',
      filter: 'writer_pdf_Export',
      options: { PageRange: { type: 'string', value: '2' } },
    });
    const text = await pdfText(readFileSync(pdf));
    expect(text).toContain('Page 2 ranged');
    expect(text).not.toContain('Page 1 ranged');
  }, 120_000);

  warm.it('fails a damaged document with CONVERSION_FAILED and keeps converting', async () => {
    const hand = engineCall('libreoffice', 'convert', {}, [{ filename: 'bad.docx', data: Buffer.from('PK\u0003\u0004 not really a zip'), format: 'docx' }], ONE);
    calls.push(hand);
    await expect(runLibreOffice(hand.call, { input: hand.call.inputs[0]!, extension: 'pdf' })).rejects.toMatchObject({ code: 'CONVERSION_FAILED' });
    expect(await convert(ONE, 'afterbad')).toContain('afterbad');
  }, 120_000);

  warm.it('converts with a process of its own where the driver cannot run (no python3-uno for OFFICE_PYTHON_PATH)', async () => {
    const env = { ...ONE, OFFICE_PYTHON_PATH: '/bin/false' };
    expect(warmPool(await docxCall(env), '/usr/lib/libreoffice')).toBeUndefined();
    expect(await convert(env, 'oneshot')).toContain('Page 2 oneshot');
  }, 120_000);

  warm.it('ends its workers with the process that started them', async () => {
    const script = [
      "import { runLibreOffice } from '#lib/engines/office/libreoffice.js';",
      "import { warmPool } from '#lib/engines/office/warm.js';",
      "import { engineCall } from './test/support/engine-call.js';",
      "import { pagedDocx } from './test/support/paged-docx.js';",
      "const hand = engineCall('libreoffice', 'convert', {}, [{ filename: 'a.docx', data: await pagedDocx(1), format: 'docx' }], { OFFICE_POOL_SIZE: '1' });",
      "await runLibreOffice(hand.call, { input: hand.call.inputs[0], extension: 'pdf' });",
      "const [worker] = warmPool(hand.call, '').workers;",
      'console.log(JSON.stringify({ pid: worker.pid, dir: worker.dir }));',
      'hand.remove();',
      'process.exit(0);',
    ].join('\n');
    const run = spawnSync('npx', ['tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
    const { pid, dir } = JSON.parse(run.stdout.trim().split('\n').pop()!) as { pid: number; dir: string };
    // Neither its sandbox nor anything started in it (soffice names the worker's profile on its command line).
    const named = (p: string) => {
      try {
        return Number(p) === pid || readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dir);
      } catch {
        return false; // ended meanwhile
      }
    };
    await expect.poll(() => readdirSync('/proc').filter((p) => /^\d+$/.test(p) && named(p)), { timeout: 20_000 }).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  }, 180_000);
});
