/**
 * OCR on tesseract.js (Tesseract compiled to WebAssembly), for machines without a system Tesseract (a
 * fresh machine after `npm ci`, a Lambda function). Each call runs in a child `node` started by
 * `runTool`, like the WebAssembly engines of wasm.ts: confined to the task's work folder, killed with
 * the task, a bounded JavaScript heap, and no network, twice over: the confinement has none where the
 * platform allows (bubblewrap), and inside the child (and the worker thread tesseract.js starts) every
 * socket connection and `fetch` throws before anything is sent. Nothing is downloaded: the trained
 * data comes from the `@tesseract.js-data/<lang>` packages (linked into the call's folder as
 * tesseract.js's `langPath`) and no cache is written.
 *
 * For each page image the child writes a text-only PDF (Tesseract's PDF renderer, an invisible text
 * layer with the page image left out) that ocr.ts lays over the page.
 */
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { TesseractJs } from '../core/ocr-detect.js';
import { runTool, type ToolOptions, type ToolResult } from '../core/tool.js';

/** The child's JavaScript heap, in MiB (the WebAssembly memory of the engine comes on top, at most 4 GiB). */
const HEAP_MB = 1024;

/**
 * Installed first in the child and in tesseract.js's worker thread (each has its own modules): any
 * attempt to reach the network throws. `WORKER` is a CommonJS file the child writes into its folder
 * as tesseract.js's `workerPath`; it then loads the real worker script.
 */
const NO_NETWORK = `
const refuse = () => { throw new Error('OCR runs without network access'); };
globalThis.fetch = async () => refuse();
for (const name of ['node:net', 'node:tls']) {
  const mod = require(name);
  for (const key of ['connect', 'createConnection']) if (typeof mod[key] === 'function') mod[key] = refuse;
  if (mod.Socket) mod.Socket.prototype.connect = refuse;
}
`;

/** The child's program (an ES module; its one argument is the JSON of a `ChildSpec`). */
const CHILD = `
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const spec = JSON.parse(process.argv[process.argv.length - 1]);
// tesseract.js reports a failure of its worker thread by throwing it outside any promise: one line
// (the stack would push the reason out of the error tail runTool keeps), and the child ends.
const fail = (err) => {
  process.stderr.write(String((err && err.message) || err).split('\\n')[0] + '\\n');
  process.exit(1);
};
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
const require = createRequire(spec.module);
${NO_NETWORK}
const workerPath = path.join(spec.cwd, 'ocr-worker.cjs');
writeFileSync(workerPath, ${JSON.stringify(NO_NETWORK)} + 'require(' + JSON.stringify(spec.workerScript) + ');\\n');
const { createWorker } = require('tesseract.js');
const worker = await createWorker(spec.languages.join('+'), 1, {
  workerPath,
  langPath: spec.langPath,
  gzip: true,
  cachePath: spec.cwd,
  cacheMethod: 'none',
  logger: () => {},
});
for (const page of spec.pages) {
  const { data } = await worker.recognize(
    readFileSync(page.image),
    { pdfTextOnly: true, pdfTitle: '', user_defined_dpi: String(page.dpi) },
    { pdf: true, text: true },
  );
  writeFileSync(page.output, Buffer.from(data.pdf));
}
await worker.terminate();
`;

/** One page image to recognize, and where its text-only PDF goes (both in the task's work folder). */
export interface OcrPage {
  image: string;
  /** The image's resolution (its pixels per inch), which sets the text page's size. */
  dpi: number;
  output: string;
}

interface ChildSpec {
  module: string;
  workerScript: string;
  cwd: string;
  languages: string[];
  langPath: string;
  pages: OcrPage[];
}

/**
 * Recognizes `pages` in `languages` (each one of `js.languages`) with tesseract.js, one text-only
 * PDF per page. `langPath` replaces the folder of trained data (tests: a URL, to show that nothing is
 * fetched).
 */
export async function recognizeWithTesseractJs(
  js: TesseractJs,
  pages: OcrPage[],
  languages: string[],
  opts: ToolOptions,
  test: { langPath?: string } = {},
): Promise<ToolResult> {
  let langPath = test.langPath;
  if (!langPath) {
    // The languages' trained data side by side, as tesseract.js reads them from one folder.
    langPath = path.join(opts.cwd, 'tessdata');
    await mkdir(langPath, { recursive: true });
    for (const language of languages) {
      const data = js.data[language];
      if (!data) throw new Error(`tesseract.js has no trained data for ${language}`);
      await symlink(data, path.join(langPath, path.basename(data)));
    }
  }
  const spec: ChildSpec = {
    module: path.join(js.folder, 'package.json'),
    workerScript: path.join(js.folder, 'src', 'worker-script', 'node', 'index.js'),
    cwd: opts.cwd,
    languages,
    langPath,
    pages,
  };
  const dataFolders = languages.flatMap((l) => (js.data[l] ? [path.dirname(js.data[l])] : []));
  return runTool(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--input-type=module', '--no-warnings', '-e', CHILD, JSON.stringify(spec)], {
    ...opts,
    name: 'tesseract.js',
    readOnly: [...(opts.readOnly ?? []), ...js.readOnly, ...dataFolders, path.dirname(process.execPath)],
  });
}
