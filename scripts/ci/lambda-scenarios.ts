/**
 * The scenarios scripts/ci/lambda-artifacts.ts runs through the packaged artifacts alone, once its harness
 * (the backends, the gateway, the event source mappings) is up: a GraphQL query; a whole job
 * import/base64 → thumbnail → export/url and its download; one job for each engine function's family on
 * the engines the stack offers; without the office function, discovery without LibreOffice and a .docx
 * job refused; an import/upload task finished by the upload-received function.
 */
import { spawnSync } from 'node:child_process';
import sharp from 'sharp';
import { shippedFfmpeg } from '#lib/engines/core/shipped.js';

type Json = any;

/** What every scenario uses: the gateway's API with the key, a check that throws, a job run to its download. */
interface Scenario {
  gateway: string;
  apiKey: string;
  /** Findings that fail the run but let the others go on. */
  problems: string[];
  say: (line: string) => void;
  api: (method: string, route: string, body?: unknown) => Promise<Json>;
  check: (ok: boolean, what: string) => void;
  runJob: (tasks: Json) => Promise<{ jobId: string; file: Json; bytes: Buffer }>;
}

export async function poll<T>(what: string, timeoutMs: number, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what}: not done within ${timeoutMs / 1000} s`);
}

/** Runs every scenario in turn; a failed check throws, a missing engine is added to `problems`. */
export async function scenario(gateway: string, apiKey: string, problems: string[], say: (line: string) => void): Promise<void> {
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(gateway + route, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 500)}`);
    return JSON.parse(text) as Json;
  };
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new Error(what);
  };

  const runJob = async (tasks: Json) => {
    const created = await api('POST', '/v2/jobs', { tag: 'ci-lambda', tasks });
    const jobId = String(created.data.id);
    const job = await poll(`job ${jobId}`, 180_000, async () => {
      const { data } = await api('GET', `/v2/jobs/${jobId}`);
      if (data.status === 'error') throw new Error(`job ${jobId} ended in error: ${JSON.stringify(data.tasks.map((t: Json) => [t.name, t.status, t.code, t.message]))}`);
      return data.status === 'finished' ? data : undefined;
    });
    const file = job.tasks.find((t: Json) => t.operation === 'export/url')?.result?.files?.[0];
    check(typeof file?.url === 'string', `export/url task has no file URL: ${JSON.stringify(job.tasks)}`);
    const download = await fetch(file.url, { redirect: 'follow' });
    check(download.ok, `export URL ${file.url}: ${download.status}`);
    return { jobId, file, bytes: Buffer.from(await download.arrayBuffer()) };
  };
  const s: Scenario = { gateway, apiKey, problems, say, api, check, runJob };
  await graphql(s);
  await thumbnailJob(s);
  await engineFamilies(s);
  await uploadForm(s);
}

async function graphql({ gateway, say, check }: Scenario): Promise<void> {
  // GraphQL through the graphql artifact.
  const gql = await fetch(`${gateway}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ creatures { name } }' }) });
  const names = ((await gql.json()) as Json)?.data?.creatures?.map((c: Json) => c.name) ?? [];
  check(gql.status === 200 && names.length === 150, `GraphQL { creatures { name } }: ${gql.status}, ${names.length} names (want 150)`);
  say(`  graphql: 150 creatures, first ${names[0]}`);
}

/** import/base64 → thumbnail → export/url, then the download. */
async function thumbnailJob({ say, check, runJob }: Scenario): Promise<void> {
  const png = await sharp({ create: { width: 200, height: 100, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
  const thumb = await runJob({
    in: { operation: 'import/base64', file: png.toString('base64'), filename: 'red.png' },
    thumb: { operation: 'thumbnail', input: 'in', output_format: 'png', width: 64 },
    out: { operation: 'export/url', input: 'thumb' },
  });
  const meta = await sharp(thumb.bytes).metadata();
  check(meta.format === 'png' && meta.width === 64, `downloaded thumbnail is ${meta.format} ${meta.width}×${meta.height}, want png 64 wide`);
  say(`  job ${thumb.jobId}: finished; ${thumb.file.filename} downloaded, ${meta.format} ${meta.width}×${meta.height}`);
}

/** One job per engine family, on the engines the stack says it has (the list every function shares); the office function's absence. */
async function engineFamilies({ gateway, apiKey, problems, say, api, check, runJob }: Scenario): Promise<void> {
  // One job per engine family, on the engines the stack says it has (the list every function shares).
  const rows: Json[] = (await api('GET', '/v2/operations?alternatives=true')).data ?? [];
  const offers = (operation: string, engine: string, input?: string) =>
    rows.some((r) => r.operation === operation && r.engine === engine && (input === undefined || r.input_format === input));
  const family = async (name: string, available: boolean, job: () => Promise<string>) => {
    if (!available) {
      problems.push(`${name}: the stack does not offer its engine (GET /v2/operations), though its function's package should carry it`);
      say(`  ${name}: NOT OFFERED`);
      return;
    }
    say(`  ${name}: ${await job()}`);
  };

  await family('chromium (HTML → PDF)', offers('convert', 'chrome', 'html'), async () => {
    const html = Buffer.from('<!doctype html><html><body><h1>Rendered by the packaged Chromium</h1></body></html>');
    const pdf = await runJob({
      in: { operation: 'import/base64', file: html.toString('base64'), filename: 'page.html' },
      pdf: { operation: 'convert', input: 'in', input_format: 'html', output_format: 'pdf', engine: 'chrome' },
      out: { operation: 'export/url', input: 'pdf' },
    });
    check(pdf.bytes.subarray(0, 5).toString('latin1') === '%PDF-', `HTML → PDF download is not a PDF: ${pdf.bytes.subarray(0, 40).toString('latin1')}`);
    return `job ${pdf.jobId} finished; ${pdf.file.filename}, PDF of ${pdf.bytes.length} bytes`;
  });

  await family('media (FFmpeg video thumbnail)', offers('thumbnail', 'ffmpeg', 'mp4'), async () => {
    const video = testVideo();
    check(video !== undefined, 'no ffmpeg on this machine (system or @ffmpeg-installer) to make the test video with');
    const out = await runJob({
      in: { operation: 'import/base64', file: video!.toString('base64'), filename: 'clip.mp4' },
      thumb: { operation: 'thumbnail', input: 'in', output_format: 'png', width: 80, timestamp: 1 },
      out: { operation: 'export/url', input: 'thumb' },
    });
    const m = await sharp(out.bytes).metadata();
    check(m.format === 'png' && m.width === 80, `video thumbnail is ${m.format} ${m.width}×${m.height}, want png 80 wide`);
    return `job ${out.jobId} finished; ${out.file.filename}, ${m.format} ${m.width}×${m.height}`;
  });

  // A PDF optimize on each engine of the pdf family: Ghostscript and qpdf (WebAssembly in the package).
  for (const optimizer of ['ghostscript', 'qpdf']) {
    await family(`pdf (optimize on ${optimizer})`, offers('optimize', optimizer, 'pdf'), async () => {
      const { PDFDocument, StandardFonts } = await import('pdf-lib');
      const doc = await PDFDocument.create();
      const font = await doc.embedFont(StandardFonts.Helvetica);
      for (let i = 1; i <= 3; i++) doc.addPage([595, 842]).drawText(`page ${i} of the optimize check`, { x: 60, y: 760, size: 18, font });
      const input = Buffer.from(await doc.save({ useObjectStreams: false }));
      const out = await runJob({
        in: { operation: 'import/base64', file: input.toString('base64'), filename: 'three-pages.pdf' },
        opt: { operation: 'optimize', input: 'in', engine: optimizer },
        out: { operation: 'export/url', input: 'opt' },
      });
      const pages = (await PDFDocument.load(out.bytes)).getPageCount();
      check(pages === 3, `optimized PDF has ${pages} pages, want 3`);
      return `job ${out.jobId} finished; ${input.length} → ${out.bytes.length} bytes, 3 pages`;
    });
  }

  // Office conversion: its function is a container image (Dockerfile), left out of a package made
  // without OFFICE_IMAGE/OFFICE_IMAGE_URI; the stack then says so at discovery and at job creation.
  if (!offers('convert', 'libreoffice')) {
    const res = await fetch(`${gateway}/v2/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        tasks: { in: { operation: 'import/base64', file: Buffer.from('x').toString('base64'), filename: 'letter.docx' }, pdf: { operation: 'convert', input: 'in', input_format: 'docx', output_format: 'pdf' } },
      }),
    });
    const body = await res.text();
    check(res.status === 422 && body.includes('docx'), `a .docx → PDF job without the office function: ${res.status} ${body.slice(0, 300)}, want 422 naming docx`);
    check(!rows.some((r) => r.engine === 'libreoffice'), 'discovery lists libreoffice in a stack without the office function');
    say('  office: absent (packaged without OFFICE_IMAGE): discovery lists no libreoffice, a .docx → PDF job gets 422');
  }

  const metadataEngine = rows.find((r) => r.operation === 'metadata/write' && r.input_format === 'jpg')?.engine as string | undefined;
  await family(`metadata round trip${metadataEngine ? ` on ${metadataEngine}` : ''}`, metadataEngine !== undefined && rows.some((r) => r.operation === 'metadata'), async () => {
    const jpg = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 20, g: 120, b: 200 } } }).jpeg().toBuffer();
    const written = await runJob({
      in: { operation: 'import/base64', file: jpg.toString('base64'), filename: 'photo.jpg' },
      write: { operation: 'metadata/write', input: 'in', metadata: { Artist: 'ci-lambda artist' } },
      out: { operation: 'export/url', input: 'write' },
    });
    const read = await runJob({
      in: { operation: 'import/base64', file: written.bytes.toString('base64'), filename: 'written.jpg' },
      meta: { operation: 'metadata', input: 'in' },
      out: { operation: 'export/url', input: 'in' },
    });
    const { data } = await api('GET', `/v2/jobs/${read.jobId}`);
    const found = JSON.stringify(data.tasks.find((t: Json) => t.operation === 'metadata')?.result?.metadata ?? {});
    check(found.includes('ci-lambda artist'), `metadata read back lacks the Artist written: ${found.slice(0, 300)}`);
    return `jobs ${written.jobId}, ${read.jobId} finished; Artist written and read back`;
  });

  await family('fonts (OTF → WOFF2, fonteditor)', offers('convert', 'fonteditor', 'otf'), async () => {
    const opentype = (await import('opentype.js')).default;
    const fontkit = await import('fontkit');
    const glyph = (name: string, unicode?: number) => new opentype.Glyph({ name, unicode, advanceWidth: 600, path: new opentype.Path() });
    const otf = new opentype.Font({ familyName: 'Packaged Probe', styleName: 'Regular', unitsPerEm: 1000, ascender: 800, descender: -200, glyphs: [glyph('.notdef'), glyph('A', 65)] });
    const { jobId, bytes } = await runJob({
      in: { operation: 'import/base64', file: Buffer.from(otf.toArrayBuffer()).toString('base64'), filename: 'probe.otf' },
      woff2: { operation: 'convert', input: 'in', output_format: 'woff2' },
      out: { operation: 'export/url', input: 'woff2' },
    });
    const read = fontkit.create(bytes);
    check(read.type === 'WOFF2' && read.familyName === 'Packaged Probe' && read.numGlyphs === 2, `the WOFF2 reads as ${read.type} ${read.familyName} with ${read.numGlyphs} glyphs`);
    return `job ${jobId} finished; fontkit reads the WOFF2`;
  });
  await family('image (BMP → PNG on imagemagick)', offers('convert', 'imagemagick', 'bmp'), async () => {
    const out = await runJob({
      in: { operation: 'import/base64', file: bmp24(40, 30).toString('base64'), filename: 'scan.bmp' },
      png: { operation: 'convert', input: 'in', output_format: 'png' },
      out: { operation: 'export/url', input: 'png' },
    });
    const m = await sharp(out.bytes).metadata();
    check(m.format === 'png' && m.width === 40 && m.height === 30, `BMP → PNG is ${m.format} ${m.width}×${m.height}, want png 40×30`);
    return `job ${out.jobId} finished; ${out.file.filename}, ${m.format} ${m.width}×${m.height}`;
  });
}

/** A 24-bit BMP of one colour, written by hand (no image engine at hand in this script). */
function bmp24(width: number, height: number): Buffer {
  const stride = Math.ceil((width * 3) / 4) * 4;
  const bmp = Buffer.alloc(54 + stride * height, 0x80);
  bmp.fill(0, 0, 54).write('BM', 0, 'latin1');
  // (offset, value, bytes) of the file header and the 40-byte info header; the rest stays 0.
  const fields: Array<[number, number, number]> = [[2, bmp.length, 4], [10, 54, 4], [14, 40, 4], [18, width, 4], [22, height, 4], [26, 1, 2], [28, 24, 2], [34, stride * height, 4]];
  for (const [at, value, bytes] of fields) bmp.writeUIntLE(value, at, bytes);
  return bmp;
}

async function uploadForm({ say, api, check }: Scenario): Promise<void> {
  // import/upload: the form's upload arrives in the bucket, the upload-received function finishes the task.
  const upload = (await api('POST', '/v2/import/upload', {})).data;
  const form = upload.result?.form;
  check(typeof form?.url === 'string', `import/upload task has no form: ${JSON.stringify(upload)}`);
  const body = new FormData();
  for (const [name, value] of Object.entries<Json>(form.parameters ?? {})) body.append(name, String(value));
  const content = Buffer.from('uploaded through the form\n'.repeat(100));
  body.append('file', new Blob([content]), 'notes.txt');
  const posted = await fetch(form.url, { method: 'POST', body, redirect: 'manual' });
  check(posted.status < 400, `upload form POST ${form.url}: ${posted.status} ${(await posted.text()).slice(0, 300)}`);
  const task = await poll('import/upload task', 60_000, async () => {
    const { data } = await api('GET', `/v2/tasks/${upload.id}`);
    if (data.status === 'error') throw new Error(`upload task ended in error: ${data.code} ${data.message}`);
    return data.status === 'finished' ? data : undefined;
  });
  const uploaded = task.result?.files?.[0];
  check(uploaded?.filename === 'notes.txt' && uploaded?.size === content.length, `upload task result ${JSON.stringify(task.result)}`);
  say(`  import/upload ${upload.id}: finished with ${uploaded.filename} (${uploaded.size} bytes)`);
}

/** A 2-second 160×120 H.264 MP4 made with this machine's FFmpeg (the system one, else the npm-shipped one the harness has). */
function testVideo(): Buffer | undefined {
  for (const ffmpeg of ['ffmpeg', shippedFfmpeg()?.file].filter((f): f is string => Boolean(f))) {
    const out = spawnSync(
      ffmpeg,
      ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=160x120:rate=10', '-pix_fmt', 'yuv420p', '-movflags', 'frag_keyframe+empty_moov', '-f', 'mp4', 'pipe:1'],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    if (out.status === 0 && out.stdout.length > 0) return out.stdout;
  }
  return undefined;
}

