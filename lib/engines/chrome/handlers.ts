/** The Chromium engine's handlers: website capture and HTML conversion (@sparticuz/chromium: x86-64 Linux only). */
import { readFile } from 'node:fs/promises';
import { safeFilename } from '../../adapters/file-store/names.js';
import type { EngineCall, EngineResult } from '../core/call.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { capture, type CaptureOptions } from './browser.js';

/** What the Chromium handlers read of a task's arguments. */
export type CaptureArgs = CaptureOptions & { output_format: string; url?: string; filename?: string };

/** The page's host name as the default file name (`example.com.pdf`). */
export function defaultName(url: string, ext: string): string {
  try {
    return safeFilename(`${new URL(url).hostname || 'website'}.${ext}`);
  } catch {
    return `website.${ext}`;
  }
}

/** capture-website: the page at `url` as PDF, PNG or JPG. */
export async function captureWebsite(call: EngineCall<CaptureArgs>): Promise<EngineResult> {
  const format = normalizeFormat(call.payload.output_format) as 'pdf' | 'png' | 'jpg';
  const url = String(call.payload.url);
  const name = call.payload.filename ?? defaultName(url, format);
  const out = call.output(name);
  await capture({ source: { url }, format, options: call.payload, out, installed: call.choice.installed, config: call.config, signal: call.signal, log: call.log });
  return { files: [{ path: out, filename: name, contentType: mimeType(format) }] };
}

/** HTML → PDF, PNG or JPG: the document is served to Chromium from the task, its resources through the address guard (none when offline). */
export async function htmlWithChrome(call: EngineCall<CaptureArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const format = normalizeFormat(call.payload.output_format) as 'pdf' | 'png' | 'jpg';
  const [name] = call.names(format, 1);
  const out = call.output(name!);
  await capture({
    source: { html: await readFile(input!.path), filename: input!.filename },
    ...(call.offline ? { offline: true as const } : {}),
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
