/** s3rver in a temporary folder on a free port, with one bucket, for integration tests. */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { createS3Client, S3FileStore } from '#lib/adapters/file-store/s3-file-store.js';
import { freePort } from '../../local/backends.js';

export async function startFilesBackend(bucket = 'files') {
  const directory = mkdtempSync(path.join(tmpdir(), 's3rver-'));
  const port = await freePort();
  const server = new S3rver({ port, address: '127.0.0.1', silent: true, directory });
  await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = createS3Client({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    client,
    server,
    files: new S3FileStore(client, bucket),
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
