/**
 * Argument schemas shared by the operation catalogs (`catalog.ts` and the catalogs it spreads into
 * `OPERATIONS`). Kept in their own module so that those catalogs can use them without importing
 * `catalog.ts`, which imports them.
 */
import * as z from 'zod';
import { isSafeFilename } from '../files/names.js';

/** `input` as given: a task name or id, or several; stored as a list. */
export const inputField = z
  .union([z.string().min(1, 'must name a task'), z.array(z.string().min(1, 'must name a task')).min(1)])
  .transform((v) => (Array.isArray(v) ? v : [v]));

/** A file name as given in arguments: already what lib/files/names.ts would make of it. */
export const filename = z
  .string()
  .min(1)
  .max(255)
  .refine(isSafeFilename, 'must be a plain file name: no slashes or backslashes, no control characters, not only dots, at most 255 bytes');

/** Arguments every task accepts. Unknown arguments are kept and echoed in `payload`. */
export const common = {
  input: inputField.optional(),
  ignore_error: z.boolean().optional(),
  timeout: z.number().int().positive().max(24 * 60 * 60).optional(),
  engine: z.string().optional(),
  engine_version: z.string().optional(),
  name: z.string().optional(),
};

export const headers = z.record(z.string(), z.string());
