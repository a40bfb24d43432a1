/**
 * Every operation the file API accepts: one line per operation's definition (its folder holds the
 * rest). The endpoints that validate requests and answer discovery load this list; it imports no
 * engine and no cloud SDK. Names and aliases must be unique (checked when the module loads).
 */
import { archive } from './archive/operation.js';
import { archiveExtract } from './archive/extract/operation.js';
import { command } from './command/operation.js';
import { captureWebsite } from './capture-website/operation.js';
import { convert } from './convert/operation.js';
import type { OperationDefinition } from './framework/define.js';
import { exportAzureBlob } from './export/azure/blob/operation.js';
import { exportGoogleCloudStorage } from './export/google-cloud-storage/operation.js';
import { exportOpenstack } from './export/openstack/operation.js';
import { exportS3 } from './export/s3/operation.js';
import { exportSftp } from './export/sftp/operation.js';
import { exportUpload } from './export/upload/operation.js';
import { exportUrl } from './export/url/operation.js';
import { importAzureBlob } from './import/azure/blob/operation.js';
import { importBase64 } from './import/base64/operation.js';
import { importGoogleCloudStorage } from './import/google-cloud-storage/operation.js';
import { importRaw } from './import/raw/operation.js';
import { importOpenstack } from './import/openstack/operation.js';
import { importS3 } from './import/s3/operation.js';
import { importSftp } from './import/sftp/operation.js';
import { importUpload } from './import/upload/operation.js';
import { importUrl } from './import/url/operation.js';
import { merge } from './merge/operation.js';
import { metadata } from './metadata/operation.js';
import { metadataWrite } from './metadata/write/operation.js';
import { optimize } from './optimize/operation.js';
import { rotatePages } from './pdf/rotate-pages/operation.js';
import { pdfOcr } from './pdf/ocr/operation.js';
import { pdfA } from './pdf/a/operation.js';
import { pdfDecrypt } from './pdf/decrypt/operation.js';
import { pdfEncrypt } from './pdf/encrypt/operation.js';
import { pdfExtractPages } from './pdf/extract-pages/operation.js';
import { pdfSplitPages } from './pdf/split-pages/operation.js';
import { pdfX } from './pdf/x/operation.js';
import { thumbnail } from './thumbnail/operation.js';
import { watermark } from './watermark/operation.js';

export const OPERATIONS = [
  importUrl,
  importRaw,
  importBase64,
  importUpload,
  importS3,
  importAzureBlob,
  importGoogleCloudStorage,
  importSftp,
  importOpenstack,
  convert,
  thumbnail,
  watermark,
  captureWebsite,
  command,
  optimize,
  pdfOcr,
  pdfSplitPages,
  pdfExtractPages,
  pdfEncrypt,
  pdfDecrypt,
  pdfA,
  pdfX,
  metadata,
  metadataWrite,
  merge,
  archive,
  archiveExtract,
  rotatePages,
  exportUrl,
  exportUpload,
  exportS3,
  exportAzureBlob,
  exportGoogleCloudStorage,
  exportSftp,
  exportOpenstack,
] as const;

/** Any operation's definition. */
export type AnyOperation = (typeof OPERATIONS)[number];
export type OperationName = AnyOperation['name'];

const byName = new Map<string, OperationDefinition>();
for (const op of OPERATIONS as readonly OperationDefinition[]) {
  for (const name of [op.name, ...(op.aliases ?? [])]) {
    if (byName.has(name)) throw new Error(`operation ${name} is declared twice`);
    byName.set(name, op);
  }
}

/** The definition of an operation by its name or one of its aliases. */
export const operationDefinition = (name: string): OperationDefinition | undefined => byName.get(name);
/** Every name requests may use (aliases included). */
export const operationNames = (): string[] => [...byName.keys()];
