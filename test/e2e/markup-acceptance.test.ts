/**
 * Issue 30's markup acceptance, through the official `cloudconvert` SDK against the whole platform
 * with the CI toolset (pandoc on PATH): MD → DOCX, MD → PDF and DOCX → MD keep the text (read back
 * with mammoth, pdf.js and marked), and a Markdown file naming a local path, a file outside the task
 * and a loopback image pulls nothing in (a loopback counter sees no request; the DOCX holds no image).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
import JSZip from 'jszip';
import mammoth from 'mammoth';
import { marked } from 'marked';
import { afterAll, expect } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { pdfText } from '../support/pdf-text.js';
import { e2eOutput } from '../support/platform-output.js';
import { requires, tool } from '../support/requires.js';

const withPandoc = requires(tool('pandoc'));
const TEXT = 'Kilo lima mike november.';
const MARK = 'OUTSIDE-MARK-5a9c';

const dataDir = mkdtempSync(path.join(tmpdir(), 'markup-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let loopback: http.Server;
const hits: string[] = [];

/** One job: `bytes` imported as `filename`, converted to `output`, exported and downloaded. */
async function convert(bytes: Buffer, filename: string, output: string): Promise<{ engine: string; bytes: Buffer }> {
  const created = await cc.jobs.create({
    tasks: {
      in: { operation: 'import/base64', file: bytes.toString('base64'), filename },
      op: { operation: 'convert', input: 'in', output_format: output },
      out: { operation: 'export/url', input: 'op' },
    },
  } as never);
  const job = await cc.jobs.wait(created.id);
  const task = job.tasks.find((t) => t.name === 'op') as unknown as { status: string; message?: string; engine: string };
  expect(task.status, String(task.message)).toBe('finished');
  const [file] = cc.jobs.getExportUrls(job) as Array<{ url: string }>;
  return { engine: task.engine, bytes: Buffer.from(await (await fetch(file!.url)).arrayBuffer()) };
}

withPandoc.describe('markup through the SDK (pandoc, and Chromium for PDF)', () => {
  withPandoc.beforeAll(async () => {
    loopback = http.createServer((req, res) => (hits.push(req.url!), res.end('GIF89a')));
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', () => resolve()));
    platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
    cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  }, 240_000);
  afterAll(async () => {
    await platform?.stop();
    // Skipped (no pandoc), the suite made no server: waiting on its close would never end.
    if (loopback) await new Promise<void>((resolve) => loopback!.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  const markdown = `# Report\n\n${TEXT}\n\n| Key | Value |\n|---|---|\n| oscar | papa |\n`;

  withPandoc.it('MD → DOCX keeps the text (mammoth)', async () => {
    const { engine, bytes } = await convert(Buffer.from(markdown), 'report.md', 'docx');
    expect(engine).toBe('pandoc');
    const text = (await mammoth.extractRawText({ buffer: bytes })).value;
    expect(text).toContain('Report');
    expect(text).toContain(TEXT);
    expect(text).toContain('papa');
  });

  withPandoc.it('MD → PDF keeps the text (pdf.js)', async () => {
    const { engine, bytes } = await convert(Buffer.from(markdown), 'report.md', 'pdf');
    expect(engine).toBe('markdown');
    const text = await pdfText(bytes);
    expect(text).toContain('Report');
    expect(text).toContain(TEXT);
    expect(text).toContain('papa');
  });

  withPandoc.it('DOCX → MD keeps the text (marked)', async () => {
    const docx = await Packer.toBuffer(
      new Document({ sections: [{ children: [new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun('Report')] }), new Paragraph({ children: [new TextRun(TEXT)] })] }] }),
    );
    const { engine, bytes } = await convert(docx, 'report.docx', 'md');
    expect(engine).toBe('pandoc');
    const tokens = marked.lexer(bytes.toString('utf8'));
    expect(tokens.find((t) => t.type === 'heading')).toMatchObject({ depth: 1, text: 'Report' });
    expect(tokens.find((t) => t.type === 'paragraph')).toMatchObject({ text: TEXT });
  });

  withPandoc.it('a Markdown file naming local paths and a loopback image pulls nothing in (DOCX and PDF)', async () => {
    const outside = path.join(dataDir, 'outside.png');
    writeFileSync(outside, `\x89PNG${MARK}`);
    const port = (loopback.address() as AddressInfo).port;
    const md = `# Links\n\n${TEXT}\n\n![a](${outside}) ![b](file://${outside}) ![c](${'../'.repeat(16)}${outside.slice(1)}) ![d](http://127.0.0.1:${port}/i.png)\n\n<img src="http://127.0.0.1:${port}/raw.png">\n`;
    const docx = await convert(Buffer.from(md), 'links.md', 'docx');
    const zip = await JSZip.loadAsync(docx.bytes);
    expect(Object.keys(zip.files).filter((n) => n.startsWith('word/media/'))).toEqual([]);
    const parts = await Promise.all(Object.values(zip.files).map((f) => f.async('string')));
    expect(parts.join('\n')).not.toContain(MARK);
    const pdf = await convert(Buffer.from(md), 'links.md', 'pdf');
    expect(pdf.bytes.toString('latin1')).not.toContain(MARK);
    expect(await pdfText(pdf.bytes)).toContain(TEXT);
    expect(hits).toEqual([]);
  });
});
