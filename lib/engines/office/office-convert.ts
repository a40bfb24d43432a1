/**
 * `convert` of text documents and spreadsheets on LibreOffice (Writer, Calc): any format of
 * office-formats.ts to another of the same application, PDF with the office engine's options.
 * Presentations and drawings keep their own path (officeToPdf).
 */
import { rename } from 'node:fs/promises';
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { exportFilter, importFilter, officeApp, pdfFilterData, type OfficePdfOptions } from './office-formats.js';
import { officeToPdf, runLibreOffice } from './libreoffice.js';

export interface OfficeConvertPayload extends OfficePdfOptions {
  output_format: string;
}

export async function convertOffice(call: EngineCall<OfficeConvertPayload>): Promise<EngineResult> {
  const input = call.inputs[0]!;
  const app = officeApp(input.format);
  // Presentations (and what another module adds) keep their path; officeToPdf reads `pages` only when it is a string.
  if (!app) return officeToPdf(call as EngineCall<{ pages?: string }>);
  const to = normalizeFormat(call.payload.output_format);
  const filter = exportFilter(app, to);
  if (!filter) throw new EngineFailure('UNSUPPORTED_FORMAT', `LibreOffice does not convert ${input.format} to ${to}.`);
  const reading = importFilter(input.format!);
  const made = await runLibreOffice(call, {
    input,
    extension: to,
    filter: filter.name,
    ...(to === 'pdf' ? { options: pdfFilterData(call.payload) } : filter.options ? { filterOptions: filter.options } : {}),
    ...(reading ? { importFilter: reading.options ? `${reading.name}:${reading.options}` : reading.name } : {}),
  });
  const [name] = call.names(to, 1);
  const out = call.output(name!);
  await rename(made, out);
  return { files: [{ path: out, filename: name!, contentType: mimeType(to) }] };
}
