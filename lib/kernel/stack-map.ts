/**
 * Stack traces of the bundled functions, mapped back to the TypeScript sources when an error is logged.
 * Each bundle has its source map beside it (`<bundle>.cjs.map`, without the sources themselves; see
 * serverless.yml custom.esbuild). Node's `--enable-source-maps` would parse every map at cold start,
 * measured at about 50 ms of CPU per start for a 1 MB map; here a map is read the first time a logged
 * error points into its bundle, and frames without a map (tsx runs, node_modules) stay as they are.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    map = null;
    if (/\.[cm]?js$/.test(file) && !file.split(path.sep).includes('node_modules')) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
      } catch {
        // no map beside this file
      }
    }
    maps.set(file, map);
  }
  return map;
}

/** `    at name (/path/file.cjs:1:234)` or `    at /path/file.cjs:1:234` */
const FRAME = /^(\s+at (?:.+? \()?)((?:file:\/\/)?\/[^:]+):(\d+):(\d+)(\)?)$/;

/** The stack with each bundle position replaced by `<source>.ts:line:column` where a map knows it. */
export function mapStack(stack: string): string {
  return stack
    .split('\n')
    .map((line) => {
      const m = FRAME.exec(line);
      if (!m) return line;
      const file = m[2]!.startsWith('file://') ? fileURLToPath(m[2]!) : m[2]!;
      const entry = mapOf(file)?.findEntry(Number(m[3]) - 1, Number(m[4]) - 1);
      if (!entry || !('originalSource' in entry) || !entry.originalSource) return line;
      // Sources are relative to the build folder (`../../../lib/tasks/store.ts`): the path below the project root.
      const source = path.posix.normalize(entry.originalSource.replace(/^file:\/\//, '')).replace(/^(\.\.\/)+/, '');
      return `${m[1]}${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}${m[5]}`;
    })
    .join('\n');
}
