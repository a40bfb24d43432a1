/** `import/google-cloud-storage` and `export/google-cloud-storage` (alias `export/cloud-storage`). */
import { GcsStorage, describeGcsError, type GcsConnection } from '../storage/gcs.js';
import { exportToStorage, importFromStorage, openStorage } from './storage-transfer.js';
import type { PayloadOf } from './define.js';
import type { exportGoogleCloudStorage as exportDefinition } from './export/google-cloud-storage/operation.js';
import type { importGoogleCloudStorage as importDefinition } from './import/google-cloud-storage/operation.js';
import type { Implementation, OperationContext } from './types.js';

const service = { service: 'Google Cloud Storage', describe: describeGcsError };

const connection = (ctx: OperationContext<PayloadOf<typeof importDefinition> | PayloadOf<typeof exportDefinition>>): GcsConnection => ({
  projectId: ctx.payload.project_id,
  bucket: ctx.payload.bucket,
  clientEmail: ctx.payload.client_email,
  privateKey: ctx.payload.private_key,
  apiEndpoint: ctx.config.GCS_API_ENDPOINT,
  tokenUrl: ctx.config.GCS_TOKEN_URL,
});

export const importGoogleCloudStorage: Implementation<PayloadOf<typeof importDefinition>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await openStorage(ctx, service, 'DOWNLOAD_FAILED', () => new GcsStorage(connection(ctx)));
  return importFromStorage(ctx, storage, { name: p.file, prefix: p.file_prefix, filename: p.filename, field: 'file' });
};

export const exportGoogleCloudStorage: Implementation<PayloadOf<typeof exportDefinition>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await openStorage(ctx, service, 'UPLOAD_FAILED', () => new GcsStorage(connection(ctx)));
  return exportToStorage(ctx, storage, { name: p.file, prefix: p.file_prefix, field: 'file' });
};
