/** The chromium family's engines (lib/engines/core/families.ts): its share of each operation, and its engine function, which runs them for the process-chromium step function in the cloud, holding no credential. Only these engines are in its package. */
import convert from '#lib/file-api/operations/convert/chromium.js';
import captureWebsite from '#lib/file-api/operations/capture-website/chromium.js';
import { familyTable } from '#lib/file-api/operations/steps.js';
import { fileURLToPath } from 'node:url';
import { engineFunctionHandler } from '#lib/wiring/engine-functions.js';

/** This function's share of each operation it runs (exactly those whose engines are in its family: checked by the compiler). */
export const runs = [convert, captureWebsite] as const;
export const implementations = familyTable('chromium', runs);
/** The chromium engine function: one task per invocation, on presigned URLs of its own files (ENGINE_ISOLATION=function). */
export const handler = engineFunctionHandler('chromium', implementations, typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url));
