/** Export URLs and upload forms for services built by hand in tests: a random signing key, forms for an hour. */
import { randomBytes } from 'node:crypto';
import { DownloadUrlSigner } from '#lib/adapters/file-store/download-urls.js';
import type { FileStore } from '#lib/adapters/file-store/port.js';
import { TaskLinks } from '#lib/file-api/tasks/links.js';

export function testLinks(files: FileStore, opts: { maxUploadBytes?: number } = {}) {
  const signer = new DownloadUrlSigner(randomBytes(32));
  return new TaskLinks({ signer: async () => signer, files, maxUploadBytes: opts.maxUploadBytes ?? 1e9, uploadFormSeconds: 3600 });
}
