/**
 * The download-URL signer of this function instance: its key is read (or made) once and kept for the
 * instance's life. The key is never logged.
 */
import { config } from '../kernel/config.js';
import { DownloadUrlSigner, loadSigningKey, readSigningKey } from '../adapters/file-store/download-urls.js';
import { stateStore } from './clients.js';

let signer: Promise<DownloadUrlSigner> | undefined;

/** The signer, making the key on first use when none exists yet (functions that show tasks). */
export function downloadUrls(): Promise<DownloadUrlSigner> {
  signer ??= loadSigningKey(stateStore(), { configured: config().URL_SIGNING_SECRET, create: true }).then(
    (key) => new DownloadUrlSigner(key!),
  );
  // A failed read is tried again by the next caller.
  signer.catch(() => (signer = undefined));
  return signer;
}

/** The signer when a key exists, without writing one (the download function reads only). */
export async function existingDownloadUrls(): Promise<DownloadUrlSigner | undefined> {
  if (signer) return signer;
  const key = await readSigningKey(stateStore(), { configured: config().URL_SIGNING_SECRET });
  if (!key) return undefined;
  signer ??= Promise.resolve(new DownloadUrlSigner(key));
  return signer;
}
