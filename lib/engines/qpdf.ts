/** The qpdf engine: lossless PDF optimization (object streams, recompressed streams, linearized for the web). */
import { copyFile, stat } from 'node:fs/promises';
import type { EngineCall, EngineResult } from '../operations/engine-task.js';
import { runTool } from './tool.js';

export async function optimizePdfLossless(call: EngineCall): Promise<EngineResult> {
  const [input] = call.inputs;
  const [name] = call.names('pdf', 1);
  const out = call.output(name!);
  await runTool(
    call.choice.installed.executable!,
    [
      '--warning-exit-0',
      '--object-streams=generate',
      '--compress-streams=y',
      '--recompress-flate',
      '--compression-level=9',
      '--linearize',
      // Signature fields and other annotations drawn into the page content.
      ...(call.payload.flatten_signatures ? ['--generate-appearances', '--flatten-annotations=all'] : []),
      input!.path,
      out,
    ],
    call.tool,
  );
  if ((await stat(out)).size >= input!.size && !call.payload.flatten_signatures) await copyFile(input!.path, out);
  return { files: [{ path: out, filename: name!, contentType: 'application/pdf' }] };
}
