/** `import/azure/blob` and `export/azure/blob` (alias `export/blobstore/blob`): Azure Blob Storage containers. */
import { AzureBlobStorage, describeAzureError, type AzureBlobConnection } from '../../../adapters/user-storage/azure-blob-storage.js';
import { exportToStorage, importFromStorage, openStorage } from './storage-transfer.js';
import type * as z from 'zod';
import type { exportAzureArgs, importAzureArgs } from '../framework/storage-fields.js';
import type { Implementation, OperationContext } from '../framework/types.js';

const service = { service: 'Azure Blob Storage', describe: describeAzureError };

const connection = (ctx: OperationContext<z.output<typeof importAzureArgs> | z.output<typeof exportAzureArgs>>): AzureBlobConnection => ({
  account: ctx.payload.storage_account,
  container: ctx.payload.container,
  accessKey: ctx.payload.storage_access_key,
  sasToken: ctx.payload.sas_token,
  endpointTemplate: ctx.config.AZURE_BLOB_ENDPOINT || undefined,
});

export const importAzureBlob: Implementation<z.output<typeof importAzureArgs>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await openStorage(ctx, service, 'DOWNLOAD_FAILED', () => new AzureBlobStorage(connection(ctx)));
  return importFromStorage(ctx, storage, { name: p.blob, prefix: p.blob_prefix, filename: p.filename, field: 'blob' });
};

export const exportAzureBlob: Implementation<z.output<typeof exportAzureArgs>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await openStorage(ctx, service, 'UPLOAD_FAILED', () => new AzureBlobStorage(connection(ctx), { metadata: p.metadata }));
  return exportToStorage(ctx, storage, { name: p.blob, prefix: p.blob_prefix, field: 'blob' });
};
