/**
 * The task-files stores (S3): one per region's bucket (REGION_BUCKETS), made on first use. A task's
 * files are read and written only through `fileStore(task.region)`, so they never leave its region's
 * bucket. Without a region (webhook bodies, tasks stored before regions existed) the store is
 * FILES_BUCKET's, which is also the bucket of a region REGION_BUCKETS does not name.
 */
import { config } from '../kernel/config.js';
import type { FileStore } from '../adapters/file-store/port.js';
import { createS3Client, formOrigin, S3FileStore } from '../adapters/file-store/s3-file-store.js';

const stores = new Map<string, FileStore>();

/** Where a region keeps its files: its bucket and the bucket's AWS region. */
export function regionBucket(region: string | undefined): { bucket: string; awsRegion: string } {
  const c = config();
  const entry = region === undefined ? undefined : c.REGION_BUCKETS[region];
  return { bucket: entry?.bucket ?? c.FILES_BUCKET, awsRegion: entry?.awsRegion ?? c.AWS_REGION };
}

export function fileStore(region?: string): FileStore {
  const { bucket, awsRegion } = regionBucket(region);
  let files = stores.get(bucket);
  if (!files) {
    files = new S3FileStore(createS3Client({ region: awsRegion, endpoint: config().AWS_ENDPOINT_URL_S3 }), bucket);
    stores.set(bucket, files);
  }
  return files;
}

/** The store of a task's (or job's) region. */
export const taskFiles = (task: { region?: string }): FileStore => fileStore(task.region);

/** The origins upload forms post to, one per region's bucket (a browser page's connect-src). */
export function uploadOrigins(): string[] {
  const c = config();
  const origins = [undefined, ...Object.keys(c.REGION_BUCKETS)].map((region) => {
    const { bucket, awsRegion } = regionBucket(region);
    return formOrigin(createS3Client({ region: awsRegion, endpoint: c.AWS_ENDPOINT_URL_S3 }), bucket, awsRegion, c.AWS_ENDPOINT_URL_S3);
  });
  return [...new Set(origins)];
}
