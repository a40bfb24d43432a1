/** `capture-website`: a web page as PDF, PNG or JPG, in Chromium (see lib/engines/chrome/browser.ts). */
import { capture } from '../engines/chrome/browser.js';
import { mimeType, normalizeFormat } from '../engines/formats.js';
import { engineOperation, type EngineCall, type EngineResult } from './engine-task.js';
import { safeFilename } from '../files/names.js';

/** The page's host name as the default file name (`example.com.pdf`). */
function defaultName(url: string, ext: string): string {
  try {
    return safeFilename(`${new URL(url).hostname || 'website'}.${ext}`);
  } catch {
    return `website.${ext}`;
  }
}

async function captureWebsite(call: EngineCall): Promise<EngineResult> {
  const format = normalizeFormat(String(call.payload.output_format)) as 'pdf' | 'png' | 'jpg';
  const url = String(call.payload.url);
  const name = typeof call.payload.filename === 'string' ? call.payload.filename : defaultName(url, format);
  const out = call.output(name);
  await capture({ source: { url }, format, options: call.payload, out, installed: call.choice.installed, config: call.config, signal: call.signal, log: call.log });
  return { files: [{ path: out, filename: name, contentType: mimeType(format) }] };
}

export const captureWebsiteOperation = engineOperation({
  operation: 'capture-website',
  mode: 'each',
  outputFormat: (p) => normalizeFormat(String(p.output_format)),
  handlers: { chrome: captureWebsite },
});
