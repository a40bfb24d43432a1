/** The signed-URL store of one function instance, its secrets sealed under the service's URL-signing key (read or made once). */
import { config } from '../kernel/config.js';
import { loadSigningKey } from '../adapters/file-store/download-urls.js';
import { stateStore } from './clients.js';
import { SignedUrlStore } from '../file-api/signed-urls/store.js';

let store: Promise<SignedUrlStore> | undefined;

export function signedUrlStore(): Promise<SignedUrlStore> {
  store ??= loadSigningKey(stateStore(), { configured: config().URL_SIGNING_SECRET, create: true }).then((key) => new SignedUrlStore(stateStore(), key!));
  // A failed read is tried again by the next caller.
  store.catch(() => (store = undefined));
  return store;
}
