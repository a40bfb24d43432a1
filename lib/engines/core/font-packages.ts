/**
 * The npm packages the fonteditor engine (lib/engines/font/) runs in its child: fonteditor-core (reads CFF
 * outlines into TrueType ones, writes TrueType fonts and EOT) with its one dependency, and wawoff2
 * (Google's woff2 encoder and decoder compiled to WebAssembly, embedded in its JavaScript). Found
 * once per process; absent when not installed (a zip without them).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface FontPackages {
  /** wawoff2's entry (CommonJS: `compress`, `decompress`). */
  wawoff2: string;
  /** fonteditor-core's CommonJS entry. */
  fonteditor: string;
  /** fonteditor-core's version: the engine's. */
  version: string;
  /** The package folders the child reads, and nothing else of node_modules. */
  folders: string[];
}

// `__filename` in the CommonJS bundles Lambda runs (import.meta is empty there), the module URL under tsx.
const require = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);

/** The root folder of the installed package `name` whose file `entry` was resolved. */
function root(name: string, entry: string): string {
  const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
  const at = entry.lastIndexOf(marker);
  return at >= 0 ? entry.slice(0, at + marker.length - 1) : path.dirname(entry);
}

let found: FontPackages | null | undefined;

export function fontPackages(): FontPackages | undefined {
  if (found === undefined) {
    try {
      const wawoff2 = require.resolve('wawoff2');
      const fonteditor = require.resolve('fonteditor-core');
      const xmldom = createRequire(fonteditor).resolve('@xmldom/xmldom');
      const folder = root('fonteditor-core', fonteditor);
      const version = String((JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { version?: unknown }).version ?? '0');
      found = { wawoff2, fonteditor, version, folders: [root('wawoff2', wawoff2), folder, root('@xmldom/xmldom', xmldom)] };
    } catch {
      found = null;
    }
  }
  return found ?? undefined;
}
