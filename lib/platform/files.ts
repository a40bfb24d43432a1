/** The task-files singleton (S3). */
import { config } from '../config.js';
import type { FileStore } from '../files/port.js';
import { createS3Client, S3FileStore } from '../files/s3.js';

let files: FileStore | undefined;

export function fileStore(): FileStore {
  if (!files) {
    const c = config();
    files = new S3FileStore(createS3Client({ region: c.AWS_REGION, endpoint: c.AWS_ENDPOINT_URL_S3 }), c.FILES_BUCKET);
  }
  return files;
}
