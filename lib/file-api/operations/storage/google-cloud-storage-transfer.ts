/** `import/google-cloud-storage` and `export/google-cloud-storage` (alias `export/cloud-storage`). */
import { GcsStorage, describeGcsError, type GcsConnection } from '../../../adapters/user-storage/gcs-storage.js';
import { exportToStorage, importFromStorage, openStorage } from './storage-transfer.js';
import type * as z from 'zod';
import type { exportGcsArgs, importGcsArgs } from '../framework/storage-fields.js';
import type { Implementation, OperationContext } from '../framework/types.js';

const service = { service: 'Google Cloud Storage', describe: describeGcsError };

const connection = (ctx: OperationContext<z.output<typeof importGcsArgs> | z.output<typeof exportGcsArgs>>): GcsConnection => ({
  projectId: ctx.payload.project_id,
  bucket: ctx.payload.bucket,
  clientEmail: ctx.payload.client_email,
  privateKey: ctx.payload.private_key,
  apiEndpoint: ctx.config.GCS_API_ENDPOINT,
  tokenUrl: ctx.config.GCS_TOKEN_URL,
});

export const importGoogleCloudStorage: Implementation<z.output<typeof importGcsArgs>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await openStorage(ctx, service, 'DOWNLOAD_FAILED', () => new GcsStorage(connection(ctx)));
  return importFromStorage(ctx, storage, { name: p.file, prefix: p.file_prefix, filename: p.filename, field: 'file' });
};

export const exportGoogleCloudStorage: Implementation<z.output<typeof exportGcsArgs>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await openStorage(ctx, service, 'UPLOAD_FAILED', () => new GcsStorage(connection(ctx)));
  return exportToStorage(ctx, storage, { name: p.file, prefix: p.file_prefix, field: 'file' });
};
