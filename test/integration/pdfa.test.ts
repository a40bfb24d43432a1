/**
 * PDF/A and PDF/X on Ghostscript (lib/engines/pdf/pdfa.ts, output-intent.ts), on each build: the system
 * `gs` when this machine has it, the WebAssembly build always. The outputs are read back with pdf-lib
 * (the XMP identification, the catalog's output intent, the document information) and PDF.js (the
 * text), never with the engine's own helpers. And optimizing a PDF/A keeps it a PDF/A of its part.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, PDFStream, PDFString, PDFHexString, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '#lib/kernel/config.js';
import type { EngineCall } from '#lib/engines/core/call.js';
import { BUNDLED_VERSIONS } from '#lib/engines/core/catalog.js';
import { confinement } from '#lib/engines/core/confine.js';
import { EngineFailure } from '#lib/engines/core/errors.js';
import { optimizePdf, type PdfArgs } from '#lib/engines/pdf/ghostscript.js';
import { isPdfA, pdfaIdentity } from '#lib/engines/pdf/output-intent.js';
import { pdfA, pdfX, type PdfAArgs } from '#lib/engines/pdf/pdfa.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import { ghostscriptWasm } from '#lib/engines/core/shipped.js';
import { createLogger } from '#lib/kernel/log.js';
import { imageHeavyPdf, textPdf } from '../fixtures/engine-fixtures.js';
import { pdfText } from '../support/pdf-text.js';
import { TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { optionalBuild, tool } from '../support/requires.js';

const config = parseConfig(TEST_CONFIG_ENV);
const systemGs = optionalBuild(tool('gs'));

interface Variant {
  variant: 'system' | 'wasm';
  executable: string;
  version: string;
}

/** The Ghostscript builds to test: the WebAssembly one always, the system one when present (else its tests are left out). */
function variants(): Array<[string, () => Variant, typeof systemGs | undefined]> {
  return [
    ['system gs', () => {
      const executable = findExecutable(config.GHOSTSCRIPT_PATH)!;
      const version = spawnSync(executable, ['--version'], { encoding: 'utf8' }).stdout.trim();
      return { variant: 'system', executable, version };
    }, systemGs],
    ['WebAssembly gs', () => ({ variant: 'wasm', executable: ghostscriptWasm()!.file, version: BUNDLED_VERSIONS.ghostscriptWasm }), undefined],
  ];
}

let root: string;
let tenPages: Buffer;
let scanned: Buffer;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'pdfa-'));
  tenPages = await textPdf(10, 'kept for the archive');
  // Large noisy images (what optimizing shrinks) under a line of text.
  const doc = await PDFDocument.load(await imageHeavyPdf(2, 1000));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const [i, page] of doc.getPages().entries()) page.drawText(`Scan ${i + 1} caption`, { x: 20, y: 20, size: 14, font });
  scanned = Buffer.from(await doc.save());
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** An engine call as the task runner makes it, on one Ghostscript build, its input a copy of `bytes`. */
function call<P>(v: Variant, operation: string, bytes: Buffer, payload: P): EngineCall<P> {
  // The task's work folder holds the call's folder (and the inputs), as the task runner lays them out.
  const work = path.join(root, `task-${randomUUID().slice(0, 8)}`);
  const dir = path.join(work, 'call');
  mkdirSync(path.join(dir, 'out'), { recursive: true });
  mkdirSync(path.join(work, 'in'));
  const input = path.join(work, 'in', '0-doc.pdf');
  writeFileSync(input, bytes);
  const ac = new AbortController();
  return {
    operation,
    payload,
    choice: {
      engine: 'ghostscript',
      version: v.version,
      installed: { version: v.version, variant: v.variant, executable: v.executable },
      capability: { operation, inputs: ['pdf'], outputs: ['pdf'], options: [] },
    },
    inputs: [{ path: input, filename: 'doc.pdf', format: 'pdf', size: bytes.length, taskId: 't' }],
    extras: [],
    dir,
    tool: { cwd: dir, workDir: work, confinement: confinement(config), signal: ac.signal },
    signal: ac.signal,
    config,
    log: createLogger({}, { level: 'silent' }),
    output: (filename) => path.join(dir, 'out', filename),
    names: (ext) => [`doc.${ext}`],
  };
}

/** A stream as its stored bytes (pdf-lib loads every stream of a file so). */
const raw = (stream: PDFStream | undefined) => (stream instanceof PDFRawStream ? stream : undefined);

/** What a PDF says of itself, read with pdf-lib. */
async function inspect(file: string) {
  const doc = await PDFDocument.load(readFileSync(file), { updateMetadata: false });
  const catalog = doc.catalog;
  const metadata = raw(catalog.lookupMaybe(PDFName.of('Metadata'), PDFStream));
  const xmp = metadata ? Buffer.from(decodePDFRawStream(metadata).decode()).toString('utf8') : '';
  const attribute = (name: string) => xmp.match(new RegExp(`pdfaid:${name}\\s*=\\s*["']([^"']*)["']`))?.[1] ?? xmp.match(new RegExp(`<pdfaid:${name}>([^<]*)<`))?.[1];
  const intents = catalog.lookupMaybe(PDFName.of('OutputIntents'), PDFArray);
  const intent = intents?.lookup(0, PDFDict);
  const profile = raw(intent?.lookupMaybe(PDFName.of('DestOutputProfile'), PDFStream));
  const text = (d: PDFDict | undefined, key: string) => {
    const value = d?.lookupMaybe(PDFName.of(key), PDFString, PDFHexString);
    return value?.decodeText();
  };
  const info = doc.context.lookupMaybe(doc.context.trailerInfo.Info, PDFDict);
  return {
    header: readFileSync(file).subarray(0, 8).toString('latin1'),
    pages: doc.getPageCount(),
    part: attribute('part'),
    conformance: attribute('conformance'),
    intents: intents?.size() ?? 0,
    intentSubtype: intent?.get(PDFName.of('S'))?.toString(),
    intentIdentifier: text(intent, 'OutputConditionIdentifier'),
    profileComponents: profile?.dict.lookupMaybe(PDFName.of('N'), PDFNumber)?.asNumber(),
    profileBytes: profile ? decodePDFRawStream(profile).decode().length : 0,
    pdfxVersion: text(info, 'GTS_PDFXVersion'),
    trimBox: doc.getPage(0).node.get(PDFName.of('TrimBox')) !== undefined,
  };
}

const LEVELS = [['1b', '1', '%PDF-1.4'], ['2b', '2', '%PDF-1.7'], ['3b', '3', '%PDF-1.7']] as const;

for (const [label, variant, needs] of variants()) {
  const d = needs ? needs.describe.bind(needs) : describe;
  d(`PDF/A and PDF/X on ${label}`, () => {
    it.each(LEVELS)('pdf/a %s: the XMP declares PDF/A part %s level B, with an sRGB output intent, and every page keeps its text', async (level, part, header) => {
      const c = call<PdfAArgs>(variant(), 'pdf/a', tenPages, { conformance_level: level });
      const { files } = await pdfA(c);
      expect(files).toEqual([{ path: c.output('doc.pdf'), filename: 'doc.pdf', contentType: 'application/pdf' }]);
      const made = await inspect(files[0]!.path);
      expect(made).toMatchObject({
        header,
        pages: 10,
        part,
        conformance: 'B',
        intents: 1,
        intentSubtype: '/GTS_PDFA1',
        intentIdentifier: 'sRGB IEC61966-2.1',
        profileComponents: 3,
      });
      // The profile itself is embedded: an ICC profile of Ghostscript's sRGB (2576 bytes, 'acsp' at 36).
      expect(made.profileBytes).toBe(2576);
      const text = await pdfText(files[0]!.path);
      for (let n = 1; n <= 10; n++) expect(text).toContain(`Page ${n} of 10 kept for the archive`);
    });

    it('pdf/a without a conformance_level makes PDF/A-2b', async () => {
      const { files } = await pdfA(call<PdfAArgs>(variant(), 'pdf/a', tenPages, {}));
      expect(await inspect(files[0]!.path)).toMatchObject({ part: '2', conformance: 'B' });
    });

    it('pdf/a refuses a conformance_level it cannot make, naming the ones it can', async () => {
      const failure = await pdfA(call<PdfAArgs>(variant(), 'pdf/a', tenPages, { conformance_level: '2u' })).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(EngineFailure);
      expect(failure).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('1b, 2b, 3b') });
    });

    it('pdf/x: declares PDF/X-3:2002, with a CMYK (SWOP) output intent and trim boxes, and keeps the text', async () => {
      const { files } = await pdfX(call(variant(), 'pdf/x', tenPages, {}));
      const made = await inspect(files[0]!.path);
      expect(made).toMatchObject({
        pages: 10,
        pdfxVersion: 'PDF/X-3:2002',
        intents: 1,
        intentSubtype: '/GTS_PDFX',
        intentIdentifier: 'CGATS TR 001',
        profileComponents: 4,
        trimBox: true,
      });
      expect(made.profileBytes).toBeGreaterThan(100_000);
      expect(await pdfText(files[0]!.path)).toContain('Page 7 of 10 kept for the archive');
    });

    it('optimize of a PDF/A-2b keeps PDF/A part 2 (with its output intent) while its images shrink', async () => {
      const archived = await pdfA(call<PdfAArgs>(variant(), 'pdf/a', scanned, { conformance_level: '2b' }));
      const pdfa = readFileSync(archived.files[0]!.path);
      const c = call<PdfArgs>(variant(), 'optimize', pdfa, { profile: 'web' });
      const { files } = await optimizePdf(c);
      // Rewritten (not the original bytes kept): smaller.
      expect(statSync(files[0]!.path).size).toBeLessThan(pdfa.length * 0.8);
      expect(await inspect(files[0]!.path)).toMatchObject({ part: '2', conformance: 'B', intents: 1, intentSubtype: '/GTS_PDFA1', profileComponents: 3 });
      expect(await pdfText(files[0]!.path)).toContain('Scan 2 caption');
    });

    it('optimize of a PDF/A-1b into grey keeps part 1 with a grey output intent', async () => {
      const archived = await pdfA(call<PdfAArgs>(variant(), 'pdf/a', scanned, { conformance_level: '1b' }));
      const { files } = await optimizePdf(call<PdfArgs>(variant(), 'optimize', readFileSync(archived.files[0]!.path), { profile: 'web', colorspace: 'gray' }));
      expect(await inspect(files[0]!.path)).toMatchObject({ header: '%PDF-1.4', part: '1', conformance: 'B', intents: 1, profileComponents: 1 });
    });

    it('optimize of a plain PDF does not make it a PDF/A', async () => {
      const { files } = await optimizePdf(call<PdfArgs>(variant(), 'optimize', scanned, { profile: 'web' }));
      expect(statSync(files[0]!.path).size).toBeLessThan(scanned.length);
      expect(await inspect(files[0]!.path)).toMatchObject({ part: undefined, intents: 0 });
    });
  });
}

describe('isPdfA and pdfaIdentity (a scan of the bytes, no engine)', () => {
  async function withXmp(xmp: string): Promise<string> {
    const doc = await PDFDocument.load(await textPdf(1));
    const stream = doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' });
    doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
    const file = path.join(root, `xmp-${randomUUID().slice(0, 8)}.pdf`);
    writeFileSync(file, await doc.save());
    return file;
  }

  it('reads the attribute form and the element form of the identification', async () => {
    const attr = await withXmp(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description pdfaid:part="3" pdfaid:conformance="u"/></rdf:RDF></x:xmpmeta>`);
    const element = await withXmp(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description><pdfaid:part>2</pdfaid:part><pdfaid:conformance>A</pdfaid:conformance></rdf:Description></rdf:RDF></x:xmpmeta>`);
    expect(await pdfaIdentity(attr)).toEqual({ part: 3, conformance: 'U' });
    expect(await pdfaIdentity(element)).toEqual({ part: 2, conformance: 'A' });
    expect(await isPdfA(element)).toBe(true);
  });

  it('finds none in a PDF without PDF/A metadata', async () => {
    const file = path.join(root, 'plain.pdf');
    writeFileSync(file, tenPages);
    expect(await pdfaIdentity(file)).toBeUndefined();
    expect(await isPdfA(file)).toBe(false);
  });

  it('finds a declaration cut across two read chunks', async () => {
    // 1 MiB of padding puts the declaration across the first chunk's end.
    const file = path.join(root, 'split.pdf');
    const head = Buffer.alloc((1 << 20) - 8, 0x20);
    writeFileSync(file, Buffer.concat([head, Buffer.from(`<rdf:Description pdfaid:part='2' pdfaid:conformance='B'/>`)]));
    expect(await pdfaIdentity(file)).toEqual({ part: 2, conformance: 'B' });
  });
});
