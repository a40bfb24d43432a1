/**
 * Class 2 of issue 10: native engines are confined. A tool reaches no network (not even the host's
 * loopback), no file outside its task's folder, no other process; LibreOffice follows none of the
 * links a document holds (images, backgrounds, sections, in ODT, flat ODT, DOCX, HTML); ffmpeg reads
 * no playlist that points elsewhere; tool messages that reach clients hold no temporary paths.
 *
 * Everything runs on the real tools (a Node.js script stands in for any tool where the tool itself does
 * not matter). Where a tool is not installed (bubblewrap, LibreOffice, perl,
 * FFmpeg), the tests that need it skip with the reason and the install command, or fail under
 * REQUIRE_ALL_TOOLS=1 as in CI (test/support/requires.ts, .ci/run).
 */
import { execFileSync } from 'node:child_process';
import { inflateRawSync } from 'node:zlib';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { confinement } from '#lib/engines/core/confine.js';
import { stripExternalLinks } from '#lib/engines/office/office-links.js';
import { closeOfficePools } from '#lib/engines/office/warm.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import { runTool, withWorkDir } from '#lib/engines/core/tool.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { colourVideo, docxWithLinkedImages, zip } from '../fixtures/engine-fixtures.js';
import { pdfText } from '../support/pdf-text.js';
import { engine, requires, tool } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from '../integration/engines-harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';

const SOFFICE = findExecutable('soffice');
const FFMPEG = findExecutable('ffmpeg');

const confined = requires(tool('bwrap'));
const unshared = requires(tool('unshare'));
const office = requires(tool('soffice'));
const officeUnshared = requires(tool('soffice'), tool('unshare'));
const confinedOffice = requires(tool('soffice'), tool('bwrap'));
/** Every native engine's tool, so that confinement is the only reason one is unavailable. */
const programs = requires(engine('ffmpeg'), engine('ghostscript'), engine('qpdf'));
const officeAndPerl = requires(tool('soffice'), tool('perl'));
const media = requires(engine('ffmpeg'));
const confinedExiftool = requires(tool('bwrap'), engine('exiftool'));

const SECRET_TEXT = 'TOPSECRET-7f3a9-host-only';
const CANARY = 'canary-3c1e-host-environment';

let receiver: Receiver;
/** Outside every work folder: what a tool must not read (a text, an image, a video). */
let secretDir: string;
let secretPng: string;
let secretTxt: string;
let secretVideo: string;

beforeAll(async () => {
  receiver = await startReceiver();
  secretDir = mkdtempSync(path.join(tmpdir(), 'confinement-secret-'));
  secretTxt = path.join(secretDir, 'secret.txt');
  writeFileSync(secretTxt, `${SECRET_TEXT}\n`);
  secretPng = path.join(secretDir, 'secret.png');
  // A magenta square: if it shows up in an output, the output holds an image.
  writeFileSync(secretPng, await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ff00ff' } }).png().toBuffer());
  secretVideo = path.join(secretDir, 'secret.mp4');
  if (media.met) writeFileSync(secretVideo, colourVideo());
  process.env.CONFINE_CANARY = CANARY;
});
afterAll(async () => {
  delete process.env.CONFINE_CANARY;
  await receiver?.close();
  rmSync(secretDir, { recursive: true, force: true });
});

/** Requests the loopback server saw, by path prefix. */
const seen = (prefix: string) => receiver.requests.filter((r) => r.path.startsWith(prefix)).map((r) => r.path);

describe('a tool run through runTool (fully confined)', () => {
  const auto = () => confinement(parseEngineConfig({}));
  /**
   * Runs a Node.js script as an engine would (node is on every machine that runs the service, so it
   * stands in for any tool): in a fresh work folder under `base`, its output captured. Its arguments
   * are `process.argv.slice(1)`.
   */
  async function script(base: string, source: string, args: string[] = [], level = auto()): Promise<string> {
    return withWorkDir(base, async (dir) => {
      const { stdout } = await runTool(process.execPath, ['-e', source, ...args], {
        cwd: dir,
        workDir: dir,
        readOnly: [path.dirname(process.execPath)],
        confinement: level,
        signal: new AbortController().signal,
        captureStdout: true,
      });
      return stdout;
    });
  }
  /** Connects to 127.0.0.1 at the port given, sends a request for /from-tool, prints `connected` or `refused`. */
  const CONNECT = `
    const socket = require('node:net').connect(Number(process.argv[1]), '127.0.0.1');
    socket.setTimeout(3000);
    socket.on('connect', () => { socket.end('GET /from-tool HTTP/1.0\\r\\n\\r\\n'); process.stdout.write('connected'); });
    socket.on('error', () => process.stdout.write('refused'));
    socket.on('timeout', () => { socket.destroy(); process.stdout.write('refused'); });`;
  const PRINT_ENV = `process.stdout.write(Object.keys(process.env).sort().map((k) => k + '=' + process.env[k]).join('\\n'))`;
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(path.join(tmpdir(), 'confinement-base-'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  confined.it('is fully confined on this machine', () => {
    expect(auto().level).toBe('bwrap');
  });

  confined.it('cannot connect to a port on the host’s loopback', async () => {
    const out = await script(base, CONNECT, [String(receiver.port)]);
    expect(out).toBe('refused');
    expect(seen('/from-tool')).toEqual([]);
  });

  confined.it('cannot read a file outside its folder, nor another task’s folder beside it', async () => {
    const sibling = path.join(base, 'engine-other-task');
    mkdirSync(sibling, { recursive: true });
    writeFileSync(path.join(sibling, 'input.txt'), SECRET_TEXT);
    const read = `for (const f of process.argv.slice(1)) {
      try { process.stdout.write('read ' + f + ': ' + require('node:fs').readFileSync(f, 'utf8') + '\\n'); }
      catch { process.stdout.write('unreadable ' + f + '\\n'); }
    }`;
    const out = await script(base, read, [secretTxt, path.join(sibling, 'input.txt'), '/etc/passwd', path.join(process.cwd(), 'package.json')]);
    expect(out).not.toContain(SECRET_TEXT);
    expect(out).not.toContain('read ');
    expect(out.match(/unreadable/g)).toHaveLength(4);
  });

  confined.it('cannot write a file outside its folder', async () => {
    const targets = [path.join(secretDir, 'written-by-tool'), path.join(base, 'written-by-tool'), path.join(tmpdir(), `written-by-tool-${process.pid}`)];
    // `inside.txt`, in its own folder, shows the script ran. (Writes into the sandbox's private /tmp may
    // succeed: that tmpfs is gone with the sandbox, which the host checks below prove.)
    const out = await script(base, `for (const f of process.argv.slice(1)) { try { require('node:fs').writeFileSync(f, 'x'); process.stdout.write('wrote ' + f + '\\n'); } catch {} }`, [...targets, 'inside.txt']);
    expect(out).toContain('wrote inside.txt');
    for (const target of targets) expect(existsSync(target), target).toBe(false);
  });

  confined.it('sees no host process and none of the host’s environment', async () => {
    const processes = `
      const fs = require('node:fs');
      const pids = fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n));
      process.stdout.write('pids: ' + pids.join(' ') + '\\n');
      for (const p of [...pids, process.argv[1]]) { try { process.stdout.write(fs.readFileSync('/proc/' + p + '/environ', 'utf8') + '\\n'); } catch {} }
      ${PRINT_ENV};`;
    const out = await script(base, processes, [String(process.pid)]);
    expect(out).not.toContain(CANARY);
    // Only the sandbox's own few processes: bubblewrap's init and the tool.
    const pids = /pids: ([\d ]*)/.exec(out)![1]!.trim().split(' ');
    expect(pids.length).toBeLessThanOrEqual(3);
    expect(pids).not.toContain(String(process.pid));
  });

  unshared.it('with only a network namespace (ENGINE_CONFINEMENT=unshare) cannot connect to the host’s loopback either', async () => {
    const out = await script(base, CONNECT, [String(receiver.port)], confinement(parseEngineConfig({ ENGINE_CONFINEMENT: 'unshare' })));
    expect(out).toBe('refused');
    expect(seen('/from-tool')).toEqual([]);
  });

  it('gets no AWS credentials or other secrets from the environment, at whatever confinement this machine has', async () => {
    process.env.AWS_SECRET_ACCESS_KEY = CANARY;
    process.env.AWS_SESSION_TOKEN = CANARY;
    try {
      const out = await script(base, PRINT_ENV);
      expect(out).toMatch(/^PATH=/m);
      expect(out).not.toContain(CANARY);
      expect(out).not.toMatch(/^AWS_/m);
    } finally {
      delete process.env.AWS_SECRET_ACCESS_KEY;
      delete process.env.AWS_SESSION_TOKEN;
    }
  });
});

describe('which engines are offered at which confinement', () => {
  const absent = { BWRAP_PATH: '/nonexistent/bwrap', UNSHARE_PATH: '/nonexistent/unshare' };
  const tools = { SOFFICE_PATH: SOFFICE ?? 'soffice', FFMPEG_PATH: FFMPEG ?? 'ffmpeg' };
  const registry = (env: Record<string, string>) => newEngineRegistry(parseEngineConfig({ ...tools, ...env }));

  office.it('does not offer LibreOffice without full confinement, and says how to get it', () => {
    const r = registry(absent);
    expect(confinement(parseEngineConfig(absent)).level).toBe('none');
    expect(r.isAvailable('libreoffice')).toBe(false);
    expect(r.installation('libreoffice').missing).toMatch(/apt-get install bubblewrap/);
    expect(r.installation('libreoffice').missing).toMatch(/ENGINE_CONFINEMENT/);
    expect(r.check('convert', { inputFormat: 'docx', outputFormat: 'pdf' })).not.toEqual([]);
    // The other engines run with what there is.
    if (FFMPEG) expect(r.isAvailable('ffmpeg')).toBe(true);
  });

  officeUnshared.it('does not offer LibreOffice with only a network namespace (unshare) either', () => {
    const env = { BWRAP_PATH: '/nonexistent/bwrap' };
    expect(confinement(parseEngineConfig(env)).level).toBe('unshare');
    expect(registry(env).isAvailable('libreoffice')).toBe(false);
  });

  office.it('offers LibreOffice when the operator says the platform confines it, or opts out explicitly', () => {
    expect(registry({ ...absent, ENGINE_CONFINEMENT: 'platform' }).isAvailable('libreoffice')).toBe(true);
    expect(registry({ ...absent, ENGINE_CONFINEMENT: 'none' }).isAvailable('libreoffice')).toBe(true);
  });

  programs.it('makes every engine that runs a program unavailable when the confinement asked for cannot be had, naming the setting', () => {
    // FFmpeg, Ghostscript and qpdf as this machine has them: system tools, or the npm-shipped builds (the
    // WebAssembly ones run in a child process, confined like the rest).
    const r = newEngineRegistry(parseEngineConfig({ ...absent, ENGINE_CONFINEMENT: 'bwrap' }));
    for (const engine of ['ffmpeg', 'ghostscript', 'qpdf']) {
      expect(r.isAvailable(engine), engine).toBe(false);
      expect(r.installation(engine).missing, engine).toMatch(/ENGINE_CONFINEMENT=bwrap/);
    }
    expect(r.isAvailable('sharp')).toBe(true);
    // exiftool keeps only its WebAssembly build: not a native tool, it sees nothing of the host but its
    // input (engines-exiftool-wasm.test.ts).
    expect(r.installation('exiftool').versions.map((v) => v.variant)).toEqual(['wasm']);
  });

  officeAndPerl.it('makes LibreOffice and exiftool on perl unavailable too', () => {
    const r = registry({ ...absent, ENGINE_CONFINEMENT: 'bwrap' });
    expect(r.isAvailable('libreoffice')).toBe(false);
    expect(r.installation('libreoffice').missing).toMatch(/ENGINE_CONFINEMENT=bwrap/);
    expect(registry({ ...absent, ENGINE_CONFINEMENT: 'bwrap', SHIPPED_ENGINES: 'false' }).installation('exiftool').missing).toMatch(/ENGINE_CONFINEMENT=bwrap/);
  });

  confinedOffice.it('offers LibreOffice where bubblewrap works', () => {
    expect(confinement(parseEngineConfig({})).level).toBe('bwrap');
    expect(registry({}).isAvailable('libreoffice')).toBe(true);
  });
});

/** The image XObjects of a PDF (a linked image that got fetched or read ends up as one). */
async function pdfImages(bytes: Buffer): Promise<number> {
  const doc = await PDFDocument.load(bytes);
  let images = 0;
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image')) images++;
  }
  return images;
}

const xml = '<?xml version="1.0" encoding="UTF-8"?>';
const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ' +
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:config="urn:oasis:names:tc:opendocument:xmlns:config:1.0"';
const odfImage = (href: string) =>
  `<text:p><draw:frame draw:name="${href.length}" text:anchor-type="as-char" svg:width="5cm" svg:height="5cm"><draw:image xlink:href="${href}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`;
const odfBackground = (name: string, href: string) =>
  `<style:style style:name="${name}" style:family="paragraph"><style:paragraph-properties fo:min-height="4cm"><style:background-image xlink:href="${href}" xlink:type="simple" xlink:actuate="onLoad" style:repeat="stretch"/></style:paragraph-properties></style:style>`;

/** A zipped ODT: `body` in office:text, `styles` as automatic styles, links updated on load when the document asks. */
function odt(body: string, styles = ''): Promise<Buffer> {
  return zip(
    {
      mimetype: 'application/vnd.oasis.opendocument.text',
      'META-INF/manifest.xml':
        `${xml}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">` +
        '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>' +
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>' +
        '<manifest:file-entry manifest:full-path="settings.xml" manifest:media-type="text/xml"/></manifest:manifest>',
      // LinkUpdateMode 2: "always update links" (the document's own request).
      'settings.xml':
        `${xml}<office:document-settings ${ODF_NS} office:version="1.2"><office:settings><config:config-item-set config:name="ooo:configuration-settings">` +
        '<config:config-item config:name="LinkUpdateMode" config:type="short">2</config:config-item></config:config-item-set></office:settings></office:document-settings>',
      'content.xml':
        `${xml}<office:document-content ${ODF_NS} office:version="1.2"><office:automatic-styles>${styles}</office:automatic-styles>` +
        `<office:body><office:text><text:p>Before the links</text:p>${body}<text:p>After the links</text:p></office:text></office:body></office:document-content>`,
    },
    ['mimetype'],
  );
}

/** A DOCX whose pictures are external relationships (`TargetMode="External"`), one per target. */
const docxLinkingImages = (targets: string[]) => docxWithLinkedImages(['Before the links', 'After the links'], targets);

confinedOffice.describe('LibreOffice follows none of a document’s links', () => {
  let h: Harness;
  let t: Record<string, TaskRecord>;
  const fileUrl = (file: string) => `file://${file}`;

  confinedOffice.beforeAll(async () => {
    h = await startEngineHarness();
    const url = (p: string) => `${receiver.url}${p}`;
    const convert = (input: string) => ({ operation: 'convert', input, output_format: 'pdf' });
    t = await h.run({
      docx: base64(await docxLinkingImages([url('/docx/image.png'), fileUrl(secretPng)]), 'external.docx'),
      docxPdf: convert('docx'),
      odt: base64(
        await odt(`${odfImage(url('/odt/image.png'))}${odfImage(fileUrl(secretPng))}<text:p text:style-name="BgHttp">Background over http</text:p><text:p text:style-name="BgFile">Background from a file</text:p>`, odfBackground('BgHttp', url('/odt/background.png')) + odfBackground('BgFile', fileUrl(secretPng))),
        'linked.odt',
      ),
      odtPdf: convert('odt'),
      // A flat (single XML file) ODT is read whatever the name says.
      flat: base64(
        Buffer.from(
          `${xml}<office:document ${ODF_NS} office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text>` +
            `<text:p>Before the links</text:p>${odfImage(url('/flat/image.png'))}${odfImage(fileUrl(secretPng))}<text:p>After the links</text:p></office:text></office:body></office:document>`,
        ),
        'flat.odt',
      ),
      flatPdf: convert('flat'),
      // HTML is read as HTML whatever the name says.
      html: base64(
        Buffer.from(
          `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Links</title></head><body><h1>Linked page</h1><p>Before the links</p>` +
            `<p><img src="${url('/html/image.png')}" width="100" height="100"></p><p><img src="${fileUrl(secretPng)}" width="100" height="100"></p><p>After the links</p></body></html>\n`,
        ),
        'page.docx',
      ),
      htmlPdf: convert('html'),
      // Linked sections: a text file and a web page inserted as the document's own text.
      section: base64(
        await odt(
          `<text:section text:name="FromFile"><text:section-source xlink:href="${fileUrl(secretTxt)}" text:filter-name="Text" xlink:type="simple"/></text:section>` +
            `<text:section text:name="FromWeb"><text:section-source xlink:href="${url('/section/page.html')}" text:filter-name="HTML (StarWriter)" xlink:type="simple"/></text:section>`,
        ),
        'sections.odt',
      ),
      sectionPdf: convert('section'),
    });
  }, 900_000);
  afterAll(async () => {
    await h?.close();
  });

  /** Checks one converted document: converted, nothing fetched, no image and no secret in it. */
  async function expectNothingLinked(task: TaskRecord, prefix: string) {
    expect(task, JSON.stringify({ status: task.status, message: task.message })).toMatchObject({ status: 'finished', engine: 'libreoffice' });
    expect(seen(prefix)).toEqual([]);
    const pdf = await h.file(task);
    expect(await pdfImages(pdf)).toBe(0);
    expect(pdf.includes(SECRET_TEXT)).toBe(false);
    const text = await pdfText(pdf);
    expect(text).toContain('After the links');
    expect(text).not.toContain(SECRET_TEXT);
  }

  it('DOCX: external image relationships to the loopback and to file:// are neither fetched nor embedded', async () => {
    await expectNothingLinked(t.docxPdf!, '/docx/');
  });

  it('ODT: linked images and paragraph background images (http and file://) are neither fetched nor embedded', async () => {
    await expectNothingLinked(t.odtPdf!, '/odt/');
  });

  it('flat ODT XML in an .odt: linked images are neither fetched nor embedded', async () => {
    await expectNothingLinked(t.flatPdf!, '/flat/');
  });

  it('HTML in a .docx: <img> sources on the loopback and file:// are neither fetched nor embedded', async () => {
    await expectNothingLinked(t.htmlPdf!, '/html/');
  });

  it('linked sections (a local text file, a web page) do not pull their text in', async () => {
    await expectNothingLinked(t.sectionPdf!, '/section/');
  });

  it('leaves nothing behind outside the work folders once the warm LibreOffice workers end: no shared profile, no other file', async () => {
    // A warm worker's folder (its profile) stays while it runs; what tasks leave in it: test/integration/office-pool.test.ts.
    await closeOfficePools();
    expect(readdirSync(h.config.ENGINE_TMP_DIR)).toEqual([]);
    expect(readdirSync(secretDir).sort()).toEqual(['secret.mp4', 'secret.png', 'secret.txt'].filter((f) => f !== 'secret.mp4' || media.met));
  });
});

/** The text of every part of a zip package (stored or deflated), by name: what LibreOffice would read. */
function packageParts(bytes: Buffer): Record<string, string> {
  const parts: Record<string, string> = {};
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = bytes.readUInt32LE(end + 16);
  for (let i = 0; i < bytes.readUInt16LE(end + 10); i++) {
    const nameLength = bytes.readUInt16LE(at + 28);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    const local = bytes.readUInt32LE(at + 42);
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const data = bytes.subarray(start, start + bytes.readUInt32LE(at + 20));
    parts[name] = (bytes.readUInt16LE(at + 10) === 8 ? inflateRawSync(data) : data).toString('utf8');
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return parts;
}

describe('office documents lose their external references where only the platform confines LibreOffice (office-links.ts)', () => {
  const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
  const IMAGE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/image';
  const TARGET = 'http://127.0.0.1:9/stripped/x.png';
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'office-links-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A .docx whose document relationships part is `rels` (under `relsName`), stripped as the office function does. */
  async function stripped(rels: string, relsName = 'word/_rels/document.xml.rels'): Promise<Record<string, string>> {
    const file = path.join(dir, `${relsName.length}-${rels.length}.docx`);
    writeFileSync(
      file,
      await zip({
        '[Content_Types].xml': '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
        'word/document.xml': '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>',
        [relsName]: `<?xml version="1.0" encoding="UTF-8"?>${rels}`,
      }),
    );
    await stripExternalLinks(file, 'docx', 'linked.docx');
    return packageParts(readFileSync(file));
  }

  it.each([
    ['a prefixed Relationship element', `<pr:Relationships xmlns:pr="${RELS}"><pr:Relationship Id="r1" Type="${IMAGE}" Target="${TARGET}" TargetMode="External"/></pr:Relationships>`],
    ['TargetMode written with character references', `<Relationships xmlns="${RELS}"><Relationship Id="r1" Type="${IMAGE}" Target="${TARGET}" TargetMode="&#69;xternal"/></Relationships>`],
    ['a > inside an attribute value before TargetMode', `<Relationships xmlns="${RELS}"><Relationship Id="r>1" Type="${IMAGE}" Target="${TARGET}" TargetMode='External'></Relationship></Relationships>`],
    ['TargetMode in other case, with white space', `<Relationships xmlns="${RELS}"><Relationship Id="r1" Type="${IMAGE}" Target="${TARGET}" TargetMode=" external "/></Relationships>`],
  ])('an external relationship survives in no form: %s', async (_name, rels) => {
    const parts = await stripped(rels);
    expect(parts['word/_rels/document.xml.rels']).not.toContain('127.0.0.1');
    expect(parts['word/_rels/document.xml.rels']).toMatch(/Relationships>$/);
  });

  it('reads a relationships part named in capitals too', async () => {
    const parts = await stripped(`<Relationships xmlns="${RELS}"><Relationship Id="r1" Type="${IMAGE}" Target="${TARGET}" TargetMode="External"/></Relationships>`, 'word/_rels/document.xml.RELS');
    expect(parts['word/_rels/document.xml.RELS']).not.toContain('127.0.0.1');
  });

  it('keeps internal relationships and external hyperlinks', async () => {
    const rels =
      `<Relationships xmlns="${RELS}"><Relationship Id="r1" Type="${IMAGE}" Target="media/image1.png"/>` +
      `<Relationship Id="r2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/a?b=1&amp;c=2" TargetMode="External"/></Relationships>`;
    expect((await stripped(rels))['word/_rels/document.xml.rels']).toBe(`<?xml version="1.0" encoding="UTF-8"?>${rels}`);
  });

  it('refuses parts it cannot read as the UTF-8 XML its rules read: UTF-16, a document type declaration', async () => {
    const file = path.join(dir, 'utf16.odt');
    const content = '<?xml version="1.0" encoding="UTF-16"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>';
    writeFileSync(file, await zip({ mimetype: 'application/vnd.oasis.opendocument.text', 'content.xml': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(content, 'utf16le')]) as unknown as string }));
    await expect(stripExternalLinks(file, 'odt', 'utf16.odt')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const doctype = path.join(dir, 'doctype.docx');
    writeFileSync(doctype, await zip({ '_rels/.rels': `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e "External">]><Relationships xmlns="${RELS}"><Relationship Id="r1" Type="${IMAGE}" Target="${TARGET}" TargetMode="&e;"/></Relationships>` }));
    await expect(stripExternalLinks(doctype, 'docx', 'doctype.docx')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

office.describe('LibreOffice where only the platform confines it (ENGINE_CONFINEMENT=platform, as in Lambda) follows none of an ODT’s links', () => {
  let h: Harness;
  let t: Record<string, TaskRecord>;
  const background = (name: string, image: string) =>
    `<style:style style:name="${name}" style:family="paragraph"><style:paragraph-properties fo:min-height="4cm">${image}</style:paragraph-properties></style:style>`;
  /** An ODT of two paragraphs whose backgrounds are `file://` and loopback images, written by `image(href)`. */
  const linked = (prefix: string, image: (href: string) => string) =>
    odt(
      '<text:p text:style-name="BgFile">Background from a file</text:p><text:p text:style-name="BgHttp">Background over http</text:p>',
      background('BgFile', image(`file://${secretPng}`)) + background('BgHttp', image(`${receiver.url}${prefix}background.png`)),
    );

  office.beforeAll(async () => {
    h = await startEngineHarness({ ENGINE_CONFINEMENT: 'platform' });
    const convert = (input: string) => ({ operation: 'convert', input, output_format: 'pdf' });
    t = await h.run({
      // A parser reads past a > inside a quoted attribute value; a pattern that stops at the first > does not.
      gt: base64(await linked('/gt/', (href) => `<style:background-image style:filter-name=">" xlink:href="${href}" xlink:type="simple" xlink:actuate="onLoad" style:repeat="stretch"/>`), 'gt.odt'),
      gtPdf: convert('gt'),
      // XLink under a prefix of the document's choosing.
      prefix: base64(await linked('/prefix/', (href) => `<style:background-image xmlns:l="http://www.w3.org/1999/xlink" l:href="${href}" l:type="simple" l:actuate="onLoad" style:repeat="stretch"/>`), 'prefix.odt'),
      prefixPdf: convert('prefix'),
      // The element in its namespace as the default one: no prefix at all.
      unprefixed: base64(await linked('/unprefixed/', (href) => `<background-image xmlns="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xlink:href="${href}" xlink:type="simple" xlink:actuate="onLoad" repeat="stretch"/>`), 'unprefixed.odt'),
      unprefixedPdf: convert('unprefixed'),
      // The reference written with character references.
      entities: base64(await linked('/entities/', (href) => `<style:background-image xlink:href="${[...href].map((c) => `&#${c.charCodeAt(0)};`).join('')}" xlink:type="simple" xlink:actuate="onLoad" style:repeat="stretch"/>`), 'entities.odt'),
      entitiesPdf: convert('entities'),
    });
  }, 900_000);
  afterAll(async () => {
    await h?.close();
  });

  it.each([
    ['a > inside an attribute value before the link', 'gt'],
    ['XLink under another prefix', 'prefix'],
    ['the element in a default namespace', 'unprefixed'],
    ['the link written with character references', 'entities'],
  ])('%s: the background image is neither fetched nor embedded', async (_name, key) => {
    const task = t[`${key}Pdf`]!;
    expect(task, JSON.stringify({ status: task.status, message: task.message })).toMatchObject({ status: 'finished', engine: 'libreoffice' });
    expect(seen(`/${key}/`)).toEqual([]);
    const pdf = await h.file(task);
    expect(await pdfImages(pdf)).toBe(0);
    expect(await pdfText(pdf)).toContain('After the links');
  });
});

media.describe('ffmpeg reads no playlist that points elsewhere', () => {
  let h: Harness;
  let t: Record<string, TaskRecord>;
  media.beforeAll(async () => {
    h = await startEngineHarness();
    // The relative way from an input in a work folder (<ENGINE_TMP_DIR>/engine-x/in/) to the secret video.
    const relative = path.relative(path.join(h.config.ENGINE_TMP_DIR, 'engine-x', 'in'), secretVideo);
    const hls = (segment: string) => Buffer.from(`#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n${segment}\n#EXT-X-ENDLIST\n`);
    const concat = (file: string) => Buffer.from(`ffconcat version 1.0\nfile '${file}'\n`);
    const thumb = (input: string) => ({ operation: 'thumbnail', input, output_format: 'png' });
    t = await h.run({
      hlsHttp: base64(hls(`${receiver.url}/hls/segment.ts`), 'playlist.mp4'),
      hlsHttpThumb: thumb('hlsHttp'),
      hlsFile: base64(hls(`file://${secretVideo}`), 'playlist-file.mp4'),
      hlsFileThumb: thumb('hlsFile'),
      hlsRelative: base64(hls(relative), 'playlist-relative.mkv'),
      hlsRelativeThumb: thumb('hlsRelative'),
      concatHttp: base64(concat(`${receiver.url}/concat/clip.mp4`), 'list.mkv'),
      concatHttpConvert: { operation: 'convert', input: 'concatHttp', output_format: 'webm' },
      concatFile: base64(concat(secretVideo), 'list-file.mov'),
      concatFileConvert: { operation: 'convert', input: 'concatFile', output_format: 'mp4' },
    });
  }, 600_000);
  afterAll(async () => {
    await h?.close();
  });

  /** The task failed with a message that names no path of this machine. */
  function expectCleanFailure(task: TaskRecord) {
    expect(task, JSON.stringify({ status: task.status, message: task.message })).toMatchObject({ status: 'error', code: 'CONVERSION_FAILED' });
    expect(task.message).not.toContain('/');
    expect(task.message).not.toContain(secretDir);
    expect(task.message).not.toContain(h.config.ENGINE_TMP_DIR);
    expect(task.message).toMatch(/failed \(exit code \d+\)/);
  }

  it('an HLS playlist naming a loopback URL: no request, a clean failure', () => {
    expect(seen('/hls/')).toEqual([]);
    expectCleanFailure(t.hlsHttpThumb!);
  });

  it('an HLS playlist naming a local file outside the folder, by file:// or by ../: not read', () => {
    expectCleanFailure(t.hlsFileThumb!);
    expectCleanFailure(t.hlsRelativeThumb!);
  });

  it('a concat list naming a loopback URL or a local file: no request, not read', () => {
    expect(seen('/concat/')).toEqual([]);
    expectCleanFailure(t.concatHttpConvert!);
    expectCleanFailure(t.concatFileConvert!);
  });
});

confinedExiftool.describe('exiftool writes nothing outside its folder', () => {
  let h: Harness;
  confinedExiftool.beforeAll(async () => {
    h = await startEngineHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a tag that makes exiftool create a link or move the file elsewhere leaves the host untouched', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#00ff00' } }).png().toBuffer();
    const targets = [path.join(secretDir, 'linked.png'), path.join(h.config.ENGINE_TMP_DIR, 'moved.png'), path.join(tmpdir(), `exif-moved-${process.pid}.png`)];
    const tasks: Record<string, Record<string, unknown>> = { img: base64(png, 'tiny.png') };
    for (const [i, target] of targets.entries()) {
      tasks[`hard${i}`] = { operation: 'metadata/write', input: 'img', metadata: { HardLink: target } };
      tasks[`move${i}`] = { operation: 'metadata/write', input: 'img', metadata: { FileName: target } };
    }
    try {
      await h.run(tasks);
    } catch {
      // Refused at creation (a tag allowlist): just as good.
    }
    for (const target of targets) expect(existsSync(target), target).toBe(false);
    expect(readdirSync(h.config.ENGINE_TMP_DIR)).toEqual([]);
    expect(readFileSync(secretTxt, 'utf8')).toContain(SECRET_TEXT);
    expect(execFileSync('ls', [secretDir], { encoding: 'utf8' })).not.toContain('linked');
  });
});
