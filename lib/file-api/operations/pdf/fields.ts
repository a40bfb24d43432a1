/** Arguments and engine use shared by the pdf/… operations that take one PDF and make PDFs. */
import * as z from 'zod';
import type { EngineCapability, EngineUse } from '../framework/define.js';
import { sameFormat } from '../framework/engine-request.js';
import { common, filename, opt } from '../framework/fields.js';

/** A password as given: any text (spaces and all), kept out of responses and logs by its name (lib/kernel/redact.ts). */
export const password = z.string().min(1).max(1024);

/** `password`: the input's own password, when it asks for one on opening. */
export const inputPassword = opt(password, null, 'the password that opens the input, when it has one');

/** The arguments of every PDF-to-PDF operation, before its own. */
export const pdfArguments = { ...common, input_format: z.enum(['pdf']).optional(), filename: filename.optional() };

/** A PDF-to-PDF operation on one engine: one call per input PDF, PDF out, 1 credit, `options` the arguments it honours. */
export function pdfToPdf<E extends string>(engine: E, options: readonly string[]): EngineUse<unknown, E> {
  const capability: EngineCapability = { inputs: ['pdf'], outputs: ['pdf'], options, credits: 1 };
  const capabilities = {} as Record<E, readonly EngineCapability[]>;
  capabilities[engine] = [capability];
  return {
    request: sameFormat,
    mode: 'each',
    outputFormat: () => 'pdf',
    order: [engine],
    capabilities,
  };
}
