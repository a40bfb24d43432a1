/**
 * The implementations of the processing operations that run on engines, by operation name, for the
 * process step's consumer (functions/tasks/process-step.ts). Their schemas are in processing-catalog.ts.
 */
import { captureWebsiteOperation } from './capture-website.js';
import { convert } from './convert.js';
import { merge } from './merge.js';
import { metadata } from './metadata.js';
import { metadataWrite } from './metadata-write.js';
import { optimize } from './optimize.js';
import { thumbnail } from './thumbnail.js';
import type { Implementation } from './types.js';
import { watermark } from './watermark.js';

export const PROCESSING_IMPLEMENTATIONS: Readonly<Record<string, Implementation>> = {
  convert,
  thumbnail,
  watermark,
  'capture-website': captureWebsiteOperation,
  optimize,
  metadata,
  'metadata/write': metadataWrite,
  merge,
};
