/**
 * The LibreOffice engine: office documents (Writer, Calc, Impress formats, as installed) to PDF with
 * `soffice --headless --convert-to`. A warm user profile is kept per instance (a fresh one costs about
 * 0.3 s per call); a second conversion while it is in use gets a fresh profile of its own, because
 * one profile serves one process at a time.
 */
import { rmSync } from 'node:fs';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EngineCall, EngineResult } from '../operations/engine-task.js';
import { TaskFailure } from '../operations/types.js';
import { basename, CALC_FORMATS, IMPRESS_FORMATS } from './formats.js';
import { runTool } from './tool.js';

let warmProfileBusy = false;
let warmProfileCleanup = false;

/** The instance's warm profile is removed when the process exits (locally; a Lambda's /tmp goes with it). */
function removeOnExit(profile: string): void {
  if (warmProfileCleanup) return;
  warmProfileCleanup = true;
  process.once('exit', () => rmSync(profile, { recursive: true, force: true }));
}

function exportFilter(format: string): string {
  if ((CALC_FORMATS as readonly string[]).includes(format)) return 'calc_pdf_Export';
  if ((IMPRESS_FORMATS as readonly string[]).includes(format)) return 'impress_pdf_Export';
  return 'writer_pdf_Export';
}

export async function officeToPdf(call: EngineCall): Promise<EngineResult> {
  const [input] = call.inputs;
  const pages = typeof call.payload.pages === 'string' ? call.payload.pages.replace(/\s+/g, '') : undefined;
  const target = pages ? `pdf:${exportFilter(input!.format!)}:${JSON.stringify({ PageRange: { type: 'string', value: pages } })}` : 'pdf';
  const outDir = path.join(call.dir, 'office');
  await mkdir(outDir, { recursive: true });

  const warm = !warmProfileBusy;
  const profile = warm ? path.join(call.config.ENGINE_TMP_DIR || tmpdir(), `libreoffice-profile-${process.pid}`) : path.join(call.dir, 'profile');
  if (warm) {
    warmProfileBusy = true;
    removeOnExit(profile);
  }
  try {
    await runTool(
      call.choice.installed.executable!,
      [
        '--headless',
        '--invisible',
        '--nologo',
        '--nodefault',
        '--norestore',
        '--nolockcheck',
        '--nofirststartwizard',
        `-env:UserInstallation=${pathToFileURL(profile).href}`,
        '--convert-to',
        target,
        '--outdir',
        outDir,
        input!.path,
      ],
      { cwd: call.dir, signal: call.signal },
    );
  } finally {
    if (warm) warmProfileBusy = false;
  }
  const made = (await readdir(outDir)).find((f) => f.toLowerCase().endsWith('.pdf'));
  if (!made) throw new TaskFailure('CONVERSION_FAILED', `LibreOffice could not convert ${input!.filename} (${basename(input!.filename)} is damaged or not a ${input!.format} file).`);
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  await rename(path.join(outDir, made), out);
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}
