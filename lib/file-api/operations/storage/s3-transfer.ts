/** `import/s3` and `export/s3` (alias `export/objstore`): S3 and any S3-compatible service. */
import type { ObjectCannedACL, ServerSideEncryption } from '@aws-sdk/client-s3';
import { S3Storage, describeS3Error, type S3Connection } from '../../../adapters/user-storage/s3-storage.js';
import { exportToStorage, importFromStorage, openStorage } from './storage-transfer.js';
import type * as z from 'zod';
import type { exportS3Args, importS3Args } from '../framework/storage-fields.js';
import type { Implementation, OperationContext } from '../framework/types.js';

const service = { service: 'S3', describe: describeS3Error };

function connection(p: z.output<typeof importS3Args> | z.output<typeof exportS3Args>): S3Connection {
  return {
    bucket: p.bucket,
    region: p.region,
    endpoint: p.endpoint,
    accessKeyId: p.access_key_id,
    secretAccessKey: p.secret_access_key,
    sessionToken: p.session_token,
  };
}

const policy = (ctx: Pick<OperationContext, 'config'>) => ({ allowLoopback: ctx.config.ALLOW_LOOPBACK_FETCH, allowHosts: ctx.config.FETCH_ALLOW_HOSTS });

export const importS3: Implementation<z.output<typeof importS3Args>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await openStorage(ctx, service, 'DOWNLOAD_FAILED', () => S3Storage.open(connection(p), { policy: policy(ctx) }));
  return importFromStorage(ctx, storage, { name: p.key, prefix: p.key_prefix, filename: p.filename, field: 'key' });
};

export const exportS3: Implementation<z.output<typeof exportS3Args>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await openStorage(ctx, service, 'UPLOAD_FAILED', () =>
    S3Storage.open(connection(p), {
      policy: policy(ctx),
      write: {
        acl: p.acl as ObjectCannedACL | undefined,
        cacheControl: p.cache_control,
        contentDisposition: p.content_disposition,
        contentType: p.content_type,
        metadata: p.metadata,
        serverSideEncryption: p.server_side_encryption as ServerSideEncryption | undefined,
        tagging: p.tagging,
      },
    }),
  );
  return exportToStorage(ctx, storage, { name: p.key, prefix: p.key_prefix, field: 'key' });
};
