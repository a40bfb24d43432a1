/** The Chromium family: capture-website and HTML conversion (@sparticuz/chromium: x86-64 Linux only). */
import { readFile } from 'node:fs/promises';
import { capture } from '../../engines/chrome/browser.js';
import { mimeType, normalizeFormat } from '../../engines/formats.js';
import { defaultName } from '../capture-website.js';
import type { CaptureOptions } from '../../engines/chrome/browser.js';
import type { EngineCall, EngineResult } from '../engine-task.js';

type CaptureArgs = CaptureOptions & { output_format: string; url?: string; filename?: string };
import type { FamilyHandlers } from './types.js';

async function captureWebsite(call: EngineCall<CaptureArgs>): Promise<EngineResult> {
  const format = normalizeFormat(String(call.payload.output_format)) as 'pdf' | 'png' | 'jpg';
  const url = String(call.payload.url);
  const name = typeof call.payload.filename === 'string' ? call.payload.filename : defaultName(url, format);
  const out = call.output(name);
  await capture({ source: { url }, format, options: call.payload, out, installed: call.choice.installed, config: call.config, signal: call.signal, log: call.log });
  return { files: [{ path: out, filename: name, contentType: mimeType(format) }] };
}

/** HTML → PDF, PNG or JPG: the document is served to Chromium from the task, its resources through the address guard. */
async function htmlWithChrome(call: EngineCall<CaptureArgs>): Promise<EngineResult> {
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

export const CHROMIUM_FAMILY: FamilyHandlers = {
  family: 'chromium',
  engines: {
    'capture-website': { chrome: captureWebsite },
    convert: { chrome: htmlWithChrome },
  },
};
