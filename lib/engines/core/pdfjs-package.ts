/**
 * pdf.js (pdfjs-dist), which the pdfjs engine (lib/engines/pdfjs/) runs in its child: its legacy build
 * (the one for Node), the standard font and CMap data it reads text with, and its version. Found once
 * per process; absent when not installed (a zip without it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface PdfjsPackage {
  /** The legacy build's ES module. */
  module: string;
  /** Folders of the standard fonts and CMaps, with a trailing separator (pdf.js reads them as files). */
  standardFonts: string;
  cmaps: string;
  version: string;
  /** The package's folder: the only part of node_modules the child reads. */
  folder: string;
}

// `__filename` in the CommonJS bundles Lambda runs (import.meta is empty there), the module URL under tsx.
const require = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);

let found: PdfjsPackage | null | undefined;

export function pdfjsPackage(): PdfjsPackage | undefined {
  if (found === undefined) {
    try {
      const manifest = require.resolve('pdfjs-dist/package.json');
      const folder = path.dirname(manifest);
      const version = String((JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version ?? '0');
      const module = path.join(folder, 'legacy', 'build', 'pdf.mjs');
      // pdf.js runs its worker's code in the same process (its "fake worker"), loaded from beside it.
      if (!existsSync(module) || !existsSync(path.join(folder, 'legacy', 'build', 'pdf.worker.mjs'))) throw new Error('pdfjs-dist has no legacy build');
      found = { module, standardFonts: path.join(folder, 'standard_fonts') + path.sep, cmaps: path.join(folder, 'cmaps') + path.sep, version, folder };
    } catch {
      found = null;
    }
  }
  return found ?? undefined;
}
