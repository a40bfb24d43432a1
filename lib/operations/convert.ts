/**
 * `convert`: between formats, each pair on its natural engine (see lib/engines/catalog.ts): images
 * with sharp, images to PDF with pdf-lib, PDF pages to images with Ghostscript, office documents to
 * PDF with LibreOffice, HTML with Chromium, video and audio with FFmpeg.
 */
import { readFile } from 'node:fs/promises';
import { capture } from '../engines/chrome/browser.js';
import { convertMedia } from '../engines/ffmpeg.js';
import { mimeType, normalizeFormat } from '../engines/formats.js';
import { pdfToImages } from '../engines/ghostscript.js';
import { officeToPdf } from '../engines/libreoffice.js';
import { imageToPdf } from '../engines/pdf.js';
import { convertImage } from '../engines/sharp.js';
import { engineOperation, type EngineCall, type EngineResult } from './engine-task.js';

/** HTML → PDF, PNG or JPG: the document is served to Chromium from the task, its resources through the address guard. */
async function htmlWithChrome(call: EngineCall): Promise<EngineResult> {
  const [input] = call.inputs;
  const format = normalizeFormat(String(call.payload.output_format)) as 'pdf' | 'png' | 'jpg';
  const [name] = call.names(format, 1);
  const out = call.output(name!);
  await capture({
    source: { html: await readFile(input!.path), filename: input!.filename },
    format,
    options: call.payload,
    out,
    installed: call.choice.installed,
    config: call.config,
    signal: call.signal,
    log: call.log,
  });
  return { files: [{ path: out, filename: name!, contentType: mimeType(format) }] };
}

export const convert = engineOperation({
  operation: 'convert',
  mode: 'each',
  outputFormat: (p) => normalizeFormat(String(p.output_format)),
  handlers: {
    sharp: convertImage,
    'pdf-lib': imageToPdf,
    ghostscript: pdfToImages,
    libreoffice: officeToPdf,
    chrome: htmlWithChrome,
    ffmpeg: convertMedia,
  },
});
