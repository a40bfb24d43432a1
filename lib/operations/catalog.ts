/**
 * The operations the file API accepts: name, the consumer step that runs it, whether it takes
 * input tasks, and the schema of its arguments. Schemas are the single source of truth: they
 * validate requests at the edge and describe the operations for discovery. Implementations live
 * beside, registered per step, so an endpoint that only validates never bundles an engine.
 */
import * as z from 'zod';
import type { Step } from '../tasks/model.js';
import { STORAGE_OPERATIONS } from './storage-catalog.js';
import { withEngineCheck } from '../engines/validation.js';
import { common, filename, headers } from './fields.js';
import { PROCESSING_OPERATIONS } from './processing-catalog.js';

export { inputField } from './fields.js';

export interface OperationSpec {
  name: string;
  step: Step;
  /** Whether `input` is required, optional or not accepted. */
  inputs: 'required' | 'optional' | 'none';
  schema: z.ZodObject;
  /** Tasks of this operation wait for a file to be uploaded instead of being queued. */
  waitsForUpload?: boolean;
}

const spec = (s: OperationSpec) => s;

export const OPERATIONS: readonly OperationSpec[] = [
  spec({
    name: 'import/url',
    step: 'import',
    inputs: 'none',
    schema: z.looseObject({
      ...common,
      url: z.string().url('must be an absolute http(s) URL').refine((u) => /^https?:/i.test(u), 'must be an http or https URL'),
      filename: filename.optional(),
      headers: headers.optional(),
    }),
  }),
  spec({
    name: 'import/raw',
    step: 'import',
    inputs: 'none',
    schema: z.looseObject({ ...common, file: z.string(), filename }),
  }),
  spec({
    name: 'import/base64',
    step: 'import',
    inputs: 'none',
    schema: z.looseObject({
      ...common,
      file: z.string().regex(/^[A-Za-z0-9+/=\s_-]*$/, 'must be base64-encoded'),
      filename,
    }),
  }),
  spec({
    name: 'import/upload',
    step: 'import',
    inputs: 'none',
    waitsForUpload: true,
    schema: z.looseObject({ ...common, redirect: z.string().url().optional() }),
  }),
  spec({
    name: 'export/url',
    step: 'export',
    inputs: 'required',
    schema: z.looseObject({ ...common, inline: z.boolean().optional(), archive_multiple_files: z.boolean().optional() }),
  }),
  spec({
    name: 'archive',
    step: 'process',
    inputs: 'required',
    schema: withEngineCheck(
      'archive',
      z.looseObject({
        ...common,
        output_format: z.enum(['zip', 'tar', 'tar.gz', 'tgz']),
        filename: filename.optional(),
      }),
    ),
  }),
  // Processing on engines: convert, thumbnail, watermark, capture-website, optimize, metadata, metadata/write, merge.
  ...PROCESSING_OPERATIONS,
  // Storage imports and exports, export/upload and their neutral aliases.
  ...STORAGE_OPERATIONS,
];

const byName = new Map<string, OperationSpec>();
for (const op of OPERATIONS) {
  if (byName.has(op.name)) throw new Error(`operation ${op.name} is declared twice`);
  byName.set(op.name, op);
}

export const operationSpec = (name: string): OperationSpec | undefined => byName.get(name);
export const operationNames = (): string[] => [...byName.keys()];
