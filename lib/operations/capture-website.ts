/** `capture-website`: a web page as PDF, PNG or JPG, in Chromium (handler: operations/families/chromium.ts). */
import { normalizeFormat } from '../engines/formats.js';
import type { EngineOperationShape } from './engine-task.js';
import { safeFilename } from '../files/names.js';

/** The page's host name as the default file name (`example.com.pdf`). */
export function defaultName(url: string, ext: string): string {
  try {
    return safeFilename(`${new URL(url).hostname || 'website'}.${ext}`);
  } catch {
    return `website.${ext}`;
  }
}

export const captureWebsiteShape: EngineOperationShape = {
  operation: 'capture-website',
  mode: 'each',
  outputFormat: (p) => normalizeFormat(String(p.output_format)),
};
