/** The pdf family's engines (lib/engines/core/families.ts): its share of each operation, and its engine function, which runs them for the process-pdf step function in the cloud, holding no credential. Only these engines are in its package. */
import convert from '#lib/file-api/operations/convert/pdf.js';
import thumbnail from '#lib/file-api/operations/thumbnail/pdf.js';
import optimize from '#lib/file-api/operations/optimize/pdf.js';
import rotatePages from '#lib/file-api/operations/pdf/rotate-pages/pdf.js';
import pdfOcr from '#lib/file-api/operations/pdf/ocr/pdf.js';
import pdfA from '#lib/file-api/operations/pdf/a/pdf.js';
import pdfDecrypt from '#lib/file-api/operations/pdf/decrypt/pdf.js';
import pdfEncrypt from '#lib/file-api/operations/pdf/encrypt/pdf.js';
import pdfExtractPages from '#lib/file-api/operations/pdf/extract-pages/pdf.js';
import pdfSplitPages from '#lib/file-api/operations/pdf/split-pages/pdf.js';
import pdfX from '#lib/file-api/operations/pdf/x/pdf.js';
import { familyTable } from '#lib/file-api/operations/steps.js';
import { fileURLToPath } from 'node:url';
import { engineFunctionHandler } from '#lib/wiring/engine-functions.js';

/** This function's share of each operation it runs (exactly those whose engines are in its family: checked by the compiler). */
export const runs = [convert, thumbnail, optimize, rotatePages, pdfSplitPages, pdfExtractPages, pdfEncrypt, pdfDecrypt, pdfA, pdfX, pdfOcr] as const;
export const implementations = familyTable('pdf', runs);
/** The pdf engine function: one task per invocation, on presigned URLs of its own files (ENGINE_ISOLATION=function). */
export const handler = engineFunctionHandler('pdf', implementations, typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url));

/**
 * serverless-esbuild packs into a function's zip the externals its bundle names in an import. The
 * WebAssembly Ghostscript and qpdf (lib/engines/core/shipped.ts) and tesseract.js with its trained data
 * (lib/engines/core/ocr-detect.ts, loaded by the OCR child from its folder) are read as files, so they are
 * named here, in a branch that never runs, for this function only.
 */
if (Date.now() < 0) {
  void Promise.all([
    import('@okathira/ghostpdl-wasm'),
    import('@neslinesli93/qpdf-wasm'),
    import('tesseract.js'),
    import('@tesseract.js-data/eng'),
    import('@tesseract.js-data/deu'),
    import('pdfjs-dist'),
  ]);
}
