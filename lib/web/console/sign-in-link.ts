/**
 * The local platform's one-click sign-in: `npm start` makes a random secret, prints
 * `<base>/console/sign-in?token=<secret>`, and gives the functions only its SHA-256
 * (LOCAL_SIGN_IN_LINK_HASH). Opening the link signs the browser in to the built-in account. It works
 * only where that setting is present (never in serverless.yml, so never on a deployed stage) and only
 * on a loopback address (a local platform reached from elsewhere gets the password form).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export const linkHash = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/** A new link secret and the hash the functions are given. */
export function newSignInLink(): { secret: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: linkHash(secret) };
}

export const signInLinkUrl = (baseUrl: string, secret: string) => `${baseUrl}/console/sign-in?token=${secret}`;

/** Whether `presented` opens the local sign-in at `baseUrl` under the configured hash. */
export function signInLinkValid(opts: { configuredHash: string; baseUrl: string; presented: string | undefined }): boolean {
  if (!/^[0-9a-f]{64}$/.test(opts.configuredHash) || !opts.presented || opts.presented.length > 100) return false;
  let host: string;
  try {
    host = new URL(opts.baseUrl).hostname;
  } catch {
    return false;
  }
  if (!LOOPBACK.has(host)) return false;
  return timingSafeEqual(Buffer.from(linkHash(opts.presented), 'hex'), Buffer.from(opts.configuredHash, 'hex'));
}
