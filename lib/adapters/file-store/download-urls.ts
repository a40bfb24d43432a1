/**
 * The service's own download URLs for export/url files: `GET {base}/v2/files/{taskId}/{index}/{name}
 * ?expires={epoch seconds}&signature={hex HMAC-SHA256}`. The service signs them with its own key, so
 * they stay valid for their whole life whatever credentials the functions run with (in Lambda a role's
 * session ends long before 24 hours, and with it every storage URL it signed). The download function
 * checks the signature, the expiry and the task, then redirects to a storage URL of a few minutes.
 *
 * The file is named by its index in the task's `result.files`; the name after it is the file name with
 * every character outside `A-Z a-z 0-9 . _ -` replaced, so that it reads well (and `curl -O` saves it
 * under a sensible name) yet needs no percent-encoding: API Gateway HTTP APIs hand the path to the
 * function decoded, so an encoded `?`, `#`, `/` or `%` would not come back as it was signed. The real
 * name travels in the redirect's Content-Disposition.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getOrCreate, type Item, type StateStore } from '../state/port.js';
import { trimEnd } from '../../kernel/text.js';

export const DOWNLOAD_PATH_PREFIX = '/v2/files';
const MAX_NAME_LENGTH = 120;

/** A file name as a path segment that no gateway or client changes (see above). */
export function urlSafeName(filename: string): string {
  let name = filename.replace(/[^A-Za-z0-9._-]/g, '_');
  if (name.length > MAX_NAME_LENGTH) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = name.slice(0, MAX_NAME_LENGTH - ext.length) + ext;
  }
  return /^\.*$/.test(name) ? 'file' : name;
}

export const downloadPath = (taskId: string, index: number, filename: string) =>
  `${DOWNLOAD_PATH_PREFIX}/${taskId}/${index}/${urlSafeName(filename)}`;

export type SignatureCheck = 'valid' | 'invalid' | 'expired';

/**
 * Signs and checks download URLs: HMAC-SHA256 over `GET`, the path and the expiry. HEAD requests are
 * checked as GET (a HEAD is a GET without the body).
 */
export class DownloadUrlSigner {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    this.#key = Buffer.from(key);
  }

  #mac(path: string, expires: number): Buffer {
    return createHmac('sha256', this.#key).update(`GET\n${path}\n${expires}`).digest();
  }

  signature(path: string, expires: number): string {
    return this.#mac(path, expires).toString('hex');
  }

  signedUrl(baseUrl: string, path: string, expires: number): string {
    return `${trimEnd(baseUrl, '/')}${path}?expires=${expires}&signature=${this.signature(path, expires)}`;
  }

  /** Whether `signature` signs `path` until `expires` (as given in the URL), and whether that time has passed. */
  check(path: string, expires: string | undefined, signature: string | undefined, nowSeconds: number): SignatureCheck {
    if (!expires || !/^[0-9]{1,12}$/.test(expires) || !signature || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
    const expected = this.#mac(path, Number(expires));
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
    return Number(expires) < nowSeconds ? 'expired' : 'valid';
  }
}

interface SigningKeyRecord extends Item {
  /** 32 random bytes, base64url. */
  value: string;
  createdAt: string;
}

export const SIGNING_KEY_ITEM = { pk: 'secret#download-urls', sk: 'secret' } as const;

/**
 * The signing key: the configured secret when there is one, else the one kept in the state table,
 * made on first use by whichever function gets there first (concurrent cold starts agree on it).
 * `create: false` only reads (`readSigningKey`).
 */
export async function loadSigningKey(
  state: StateStore,
  opts: { configured?: string; create: boolean },
): Promise<Buffer | undefined> {
  if (!opts.create || opts.configured) return readSigningKey(state, opts);
  const record = await getOrCreate<SigningKeyRecord>(state, SIGNING_KEY_ITEM, () => ({
    ...SIGNING_KEY_ITEM,
    value: randomBytes(32).toString('base64url'),
    createdAt: new Date().toISOString(),
  }));
  return Buffer.from(record.value, 'base64url');
}

/**
 * The signing key without writing one (the download function may not write: its role has no
 * dynamodb:PutItem, and `npm run ci:roles` sees what this function can reach, so it stays apart from
 * the branch that makes the key); undefined when there is none yet, in which case no URL was ever signed.
 */
export async function readSigningKey(state: StateStore, opts: { configured?: string }): Promise<Buffer | undefined> {
  if (opts.configured) return Buffer.from(opts.configured, 'utf8');
  const record = await state.get<SigningKeyRecord>(SIGNING_KEY_ITEM, { consistent: true });
  return record ? Buffer.from(record.value, 'base64url') : undefined;
}
