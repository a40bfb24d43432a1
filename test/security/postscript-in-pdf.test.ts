/**
 * Issue 10, class 6: PostScript inside a "PDF". A file is a PDF only when it starts with `%PDF-`
 * (offset 0); Ghostscript only ever parses bytes qpdf wrote (its normalized copy of the input), always
 * with -dSAFER; without qpdf the Ghostscript engine is not available. PostScript polyglots (a `%!PS`
 * program with a PDF after it, PostScript named .pdf, leading junk, a DOS EPS binary header) end in
 * INVALID_INPUT on every PDF operation, and their PostScript never runs: the files it would write or
 * copy never appear.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import { setEngineRegistry, newEngineRegistry } from '#lib/file-api/operations/engines.js';
import type * as Wasm from '#lib/engines/core/wasm.js';
import { ApiError } from '#lib/kernel/errors.js';
import { textPdf } from '../fixtures/engine-fixtures.js';
import { requires, type Requirement, type Requirements } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from '../integration/engines-harness.js';

const marker = randomUUID().slice(0, 8);
/** Ghostscript's own temp folder is where -dSAFER still lets PostScript write: /tmp. */
const GS_TMP = '/tmp';
const target = (name: string) => path.join(GS_TMP, `pwned-${marker}-${name}`);
const secret = path.join(GS_TMP, `secret-${marker}.txt`);

/** A PostScript program that writes a file, copies a secret into another, and draws a page. */
function program(name: string): string {
  return [
    `{ (${target(`${name}-write`)}) (w) file dup (pwned) writestring closefile } stopped pop`,
    `{ /s (${secret}) (r) file def /d (${target(`${name}-copy`)}) (w) file def d s 100 string readstring pop writestring d closefile } stopped pop`,
    '/Helvetica findfont 24 scalefont setfont 72 200 moveto (POSTSCRIPT RAN) show',
    'showpage',
    'quit',
    '',
  ].join('\n');
}

/** A DOS EPS binary header (C5D0D3C6) pointing at a PostScript section, then a PDF. */
function epsBinary(ps: string, pdf: Buffer): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32BE(0xc5d0d3c6, 0);
  header.writeUInt32LE(30, 4);
  header.writeUInt32LE(ps.length, 8);
  header.writeUInt16LE(0xffff, 28);
  return Buffer.concat([header, Buffer.from(ps, 'latin1'), pdf]);
}

let h: Harness;
let pdf: Buffer;
let variants: Record<string, Buffer>;
/** Where this file logs every Ghostscript run: a copy of the file it parsed (`input-*`) and its arguments (`args`). */
const logDir = mkdtempSync(path.join(tmpdir(), 'gs-log-'));

function logInput(file: string): void {
  if (existsSync(file)) copyFileSync(file, path.join(logDir, `input-${process.pid}-${randomUUID()}`));
}

/**
 * The shipped Ghostscript runs through runWasm in a child process: the same log, taken where the
 * engine's inputs and arguments are handed to that child.
 */
vi.mock('#lib/engines/core/wasm.js', async (importOriginal) => {
  const real = await importOriginal<typeof Wasm>();
  return {
    ...real,
    runWasm: (...call: Parameters<typeof real.runWasm>) => {
      const [name, , run] = call;
      if (name === 'gs') {
        appendFileSync(path.join(logDir, 'args'), `${run.args.join(' ')}\n`);
        for (const file of run.inputs) logInput(file);
      }
      return real.runWasm(...call);
    },
  };
});

const gsInputs = () => readdirSync(logDir).filter((f) => f.startsWith('input-')).map((f) => readFileSync(path.join(logDir, f)));
const gsCalls = () => (existsSync(path.join(logDir, 'args')) ? readFileSync(path.join(logDir, 'args'), 'utf8').trim().split('\n').filter(Boolean) : []);
const strays = () => readdirSync(GS_TMP).filter((n) => n.includes(`pwned-${marker}`));

/** The system Ghostscript behind a logging wrapper (a shell script that copies its last argument, the file it parses). */
function systemWrapper(): string {
  const wrapper = path.join(logDir, 'gs');
  writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      `printf '%s\\n' "$*" >> '${logDir}/args'`,
      'for a in "$@"; do last="$a"; done',
      `case "$last" in -*) ;; *) [ -f "$last" ] && cp "$last" "${logDir}/input-$$-$(date +%s%N)" ;; esac`,
      `exec '${findExecutable('gs')}' "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

/** The shipped WebAssembly Ghostscript and qpdf, as a fresh machine has them after `npm ci`. */
const SHIPPED = { GHOSTSCRIPT_PATH: `/nonexistent/gs-${marker}`, QPDF_PATH: `/nonexistent/qpdf-${marker}`, SHIPPED_ENGINES: 'true' };
const shippedEngines: Requirement = {
  name: 'shipped Ghostscript and qpdf',
  missing: () =>
    newEngineRegistry(parseEngineConfig(SHIPPED)).isAvailable('ghostscript')
      ? undefined
      : 'the WebAssembly Ghostscript and qpdf packages are not installed; to add them: npm ci',
};

/**
 * Each installation of Ghostscript the service may use, and the settings that select it: the one this
 * machine prefers (the system Ghostscript and qpdf where installed, as in CI; else the shipped ones, so
 * a fresh machine runs these tests twice on them), and the shipped WebAssembly one, pinned. The system
 * one logs through its wrapper, which writes outside the task's folder: confinement rightly forbids
 * that, and these tests are about what Ghostscript is given to parse, so it runs unconfined there
 * (engine-confinement.test.ts covers the confinement). The WebAssembly one runs as it always does.
 */
const INSTALLATIONS: Array<{ name: string; needs: Requirements; settings: () => Record<string, string> }> = [
  {
    name: 'the Ghostscript and qpdf this machine prefers (the system ones where installed)',
    needs: requires(),
    settings: (): Record<string, string> => (findExecutable('gs') && findExecutable('qpdf') ? { GHOSTSCRIPT_PATH: systemWrapper(), ENGINE_CONFINEMENT: 'none' } : {}),
  },
  { name: 'Ghostscript and qpdf as WebAssembly', needs: requires(shippedEngines), settings: () => SHIPPED },
];

beforeAll(async () => {
  writeFileSync(secret, `the secret ${marker}\n`);
  pdf = await textPdf(1, 'real PDF page');
  variants = {
    'a %!PS program with a PDF after it': Buffer.concat([Buffer.from(`%!PS-Adobe-3.0\n${program('ps-then-pdf')}`, 'latin1'), pdf]),
    'PostScript named .pdf': Buffer.from(`%!PS-Adobe-3.0\n${program('named-pdf')}`, 'latin1'),
    'leading junk, PostScript, then a PDF': Buffer.concat([Buffer.from(`\n\n  % junk\n${program('junk')}`, 'latin1'), pdf]),
    'a DOS EPS binary header': epsBinary(`%!PS-Adobe-3.0 EPSF-3.0\n${program('eps')}`, pdf),
    'a PostScript comment holding %PDF- on its first line': Buffer.concat([Buffer.from(`%!PS %PDF-1.7\n${program('comment')}`, 'latin1'), pdf]),
    'a %PDF- header after a byte-order mark': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${program('bom')}`, 'latin1'), pdf]),
  };
});
afterAll(() => {
  setEngineRegistry(undefined);
  for (const stray of strays()) rmSync(path.join(GS_TMP, stray), { force: true });
  rmSync(secret, { force: true });
  rmSync(logDir, { recursive: true, force: true });
});

describe.each(INSTALLATIONS)('$name', ({ needs, settings }) => {
  needs.beforeAll(async () => {
    const selected = settings();
    setEngineRegistry(newEngineRegistry(parseEngineConfig(selected)));
    h = await startEngineHarness(selected);
  });
  afterAll(async () => {
    setEngineRegistry(undefined);
    await h?.close();
  });

  needs.describe('PostScript dressed as PDF', () => {
    const OPERATIONS: Record<string, Record<string, unknown>> = {
      optimize: { operation: 'optimize', input: 'doc' },
      optimizeQpdf: { operation: 'optimize', input: 'doc', engine: 'qpdf' },
      thumbnail: { operation: 'thumbnail', input: 'doc', output_format: 'png', width: 100 },
      convert: { operation: 'convert', input: 'doc', output_format: 'png' },
      watermark: { operation: 'watermark', input: 'doc', text: 'x' },
      merge: { operation: 'merge', input: 'doc', output_format: 'pdf' },
    };

    it.each([
      'a %!PS program with a PDF after it',
      'PostScript named .pdf',
      'leading junk, PostScript, then a PDF',
      'a DOS EPS binary header',
      'a PostScript comment holding %PDF- on its first line',
      'a %PDF- header after a byte-order mark',
    ])('%s: every PDF operation ends in INVALID_INPUT and the PostScript never runs', async (variant) => {
      const before = gsInputs().length;
      const t = await h.run({ doc: base64(variants[variant]!, 'doc.pdf'), ...OPERATIONS });
      for (const name of Object.keys(OPERATIONS)) {
        expect(t[name], `${name}: ${t[name]!.message}`).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
        expect(t[name]!.message, name).toContain('%PDF-');
      }
      expect(strays()).toEqual([]);
      // Ghostscript was not even asked to look at it.
      expect(gsInputs().length).toBe(before);
    });

    it('refuses the polyglot when input_format says pdf and the name says nothing', async () => {
      const t = await h.run({
        doc: base64(variants['a %!PS program with a PDF after it']!, 'upload'),
        thumbnail: { operation: 'thumbnail', input: 'doc', input_format: 'pdf', output_format: 'png' },
      });
      expect(t.thumbnail).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
      expect(strays()).toEqual([]);
    });

    it('without a declared format, PostScript is never taken for a PDF', async () => {
      const t = await h.run({
        doc: base64(variants['a %!PS program with a PDF after it']!, 'upload'),
        thumbnail: { operation: 'thumbnail', input: 'doc', output_format: 'png' },
      });
      expect(t.thumbnail).toMatchObject({ status: 'error' });
      expect(t.thumbnail!.code).toMatch(/^(INVALID_INPUT|UNSUPPORTED_FORMAT)$/);
      expect(strays()).toEqual([]);
    });
  });

  needs.describe('what Ghostscript parses', () => {
    it('is always qpdf’s normalized copy, never the uploaded bytes, and always with -dSAFER', async () => {
      const before = gsInputs().length;
      const callsBefore = gsCalls().length;
      const t = await h.run({
        doc: base64(pdf, 'doc.pdf'),
        optimize: { operation: 'optimize', input: 'doc', profile: 'print' },
        thumbnail: { operation: 'thumbnail', input: 'doc', output_format: 'png', width: 100 },
        convert: { operation: 'convert', input: 'doc', output_format: 'jpg' },
      });
      for (const name of ['optimize', 'thumbnail', 'convert']) expect(t[name], `${name}: ${t[name]!.message}`).toMatchObject({ status: 'finished', engine: 'ghostscript' });
      const inputs = gsInputs().slice(before);
      expect(inputs.length).toBe(3);
      // qpdf writes its own header and binary comment line; pdf-lib (which made `pdf`) writes another.
      for (const input of inputs) {
        expect(input.subarray(0, 7).toString('latin1')).toBe('%PDF-1.');
        expect(input.subarray(9, 14).equals(Buffer.from([0x25, 0xbf, 0xf7, 0xa2, 0xfe]))).toBe(true);
        expect(input.equals(pdf)).toBe(false);
      }
      const calls = gsCalls().slice(callsBefore).filter((c) => c !== '--version');
      expect(calls.length).toBeGreaterThanOrEqual(3);
      for (const c of calls) expect(c.split(' ')).toContain('-dSAFER');
    });
  });
});

/**
 * Ghostscript is there, qpdf is not (neither the system one nor the shipped one): the reason names
 * qpdf. A stand-in `gs` that only answers `--version` is enough, since nothing runs it.
 */
describe('without qpdf (system or shipped)', () => {
  let standIn: string;
  let settings: Record<string, string>;
  beforeAll(() => {
    standIn = path.join(logDir, 'stand-in-gs');
    writeFileSync(standIn, '#!/bin/sh\necho 10.05.1\n');
    chmodSync(standIn, 0o755);
    settings = { GHOSTSCRIPT_PATH: standIn, QPDF_PATH: `/nonexistent/qpdf-${marker}`, SHIPPED_ENGINES: 'false' };
  });

  it('the Ghostscript engine is not available, and discovery says why', () => {
    const registry = newEngineRegistry(parseEngineConfig(settings));
    expect(registry.installation('ghostscript').versions).toEqual([]);
    expect(registry.isAvailable('ghostscript')).toBe(false);
    expect(registry.installation('ghostscript').missing).toMatch(/qpdf/);
    expect(registry.installation('ghostscript').missing).toMatch(/QPDF_PATH/);
    expect(registry.check('thumbnail', { inputFormat: 'pdf', outputFormat: 'png' })).toEqual([expect.objectContaining({ field: 'input_format' })]);
    // Images keep their engines.
    expect(registry.check('thumbnail', { inputFormat: 'jpg', outputFormat: 'png' })).toEqual([]);
    // With the stand-in and a qpdf, it would be offered: the refusal is qpdf's absence alone.
    const withQpdf = newEngineRegistry(parseEngineConfig({ GHOSTSCRIPT_PATH: standIn, SHIPPED_ENGINES: 'true' }));
    expect(withQpdf.isAvailable('ghostscript')).toBe(true);
  });

  it('a job asking for a PDF thumbnail is refused at creation', async () => {
    setEngineRegistry(newEngineRegistry(parseEngineConfig(settings)));
    const harness = await startEngineHarness(settings);
    try {
      await expect(
        harness.run({ doc: base64(pdf, 'doc.pdf'), thumbnail: { operation: 'thumbnail', input: 'doc', input_format: 'pdf', output_format: 'png' } }),
      ).rejects.toBeInstanceOf(ApiError);
    } finally {
      setEngineRegistry(undefined);
      await harness.close();
    }
  });
});
