/**
 * The qpdf engine: lossless PDF optimization (object streams, recompressed streams, linearized for the
 * web). The system qpdf when there is one (QPDF_PATH), else qpdf compiled to WebAssembly (wasm.ts),
 * which Ghostscript's input rewrite (ghostscript.ts) uses as well.
 */
import { copyFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { qpdfWasm, type QpdfTool } from '../core/shipped.js';
import { runTool, type ToolOptions, type ToolResult } from '../core/tool.js';
import { runWasm } from '../core/wasm.js';

/** Runs qpdf (`tool`) on `input`, writing `output` (both in the task's work folder), with `options` before the file names. */
export function runQpdf(tool: QpdfTool, options: string[], input: string, output: string, opts: ToolOptions): Promise<ToolResult> {
  const args = [...options, input, output];
  if (tool.variant === 'system') return runTool(tool.file, args, opts);
  return runWasm('qpdf', tool.module, { args, inputs: [input], outputs: [path.dirname(output)] }, opts);
}

/** The qpdf an engine call chose: its WebAssembly build (variant `wasm`) or the system executable. */
export function chosenQpdf(installed: EngineCall['choice']['installed']): QpdfTool {
  if (installed.variant !== 'wasm') return { variant: 'system', file: installed.executable! };
  const wasm = qpdfWasm();
  if (!wasm) throw new EngineFailure('ENGINE_UNAVAILABLE', 'The qpdf WebAssembly build (@neslinesli93/qpdf-wasm) is not installed.');
  return { variant: 'wasm', file: wasm.file, module: wasm };
}

export async function optimizePdfLossless(call: EngineCall<{ flatten_signatures?: boolean }>): Promise<EngineResult> {
  const [input] = call.inputs;
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  await runQpdf(
    chosenQpdf(call.choice.installed),
    [
      '--warning-exit-0',
      '--object-streams=generate',
      '--compress-streams=y',
      '--recompress-flate',
      '--compression-level=9',
      '--linearize',
      // Signature fields and other annotations drawn into the page content.
      ...(call.payload.flatten_signatures ? ['--generate-appearances', '--flatten-annotations=all'] : []),
    ],
    input!.path,
    out,
    call.tool,
  );
  if ((await stat(out)).size >= input!.size && !call.payload.flatten_signatures) await copyFile(input!.path, out);
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}

