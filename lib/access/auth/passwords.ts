/**
 * Account passwords: scrypt (node:crypto), a random 16-byte salt per hash, and the cost parameters
 * stored with the hash, so they can be raised later without breaking older hashes:
 *
 *   scrypt$<N>$<r>$<p>$<salt, base64url>$<derived key, base64url>
 *
 * The parameters are OWASP's first recommendation for scrypt (N = 2^17, r = 8, p = 1: 128 MiB and
 * about a second of one core here). Verification derives the key again with the stored parameters
 * and compares in constant time; a malformed stored hash never verifies. Passwords never reach a log.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const SCRYPT_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Bounds on stored parameters, so a tampered hash cannot make verification allocate without end. */
const MAX_N = 2 ** 20;
const MAX_RP = 64;

/** The shortest password an account may have. */
export const MIN_PASSWORD_LENGTH = 12;
/** The longest accepted (scrypt takes any length; this keeps form posts small). */
export const MAX_PASSWORD_LENGTH = 1024;

const scrypt = (password: string, salt: Buffer, keylen: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCallback(password.normalize('NFC'), salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));

const memoryFor = ({ N, r }: { N: number; r: number }) => 128 * N * r + 16 * 1024 * 1024;

export async function hashPassword(password: string, params: { N: number; r: number; p: number } = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, KEY_BYTES, { ...params, maxmem: memoryFor(params) });
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parse(stored: string) {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  const N = Number(n);
  const R = Number(r);
  const P = Number(p);
  if (scheme !== 'scrypt' || !salt || !key) return undefined;
  if (!Number.isInteger(N) || N < 2 || N > MAX_N || (N & (N - 1)) !== 0) return undefined;
  if (!Number.isInteger(R) || R < 1 || R > MAX_RP || !Number.isInteger(P) || P < 1 || P > MAX_RP) return undefined;
  const derived = Buffer.from(key, 'base64url');
  if (derived.length < 16) return undefined;
  return { N, r: R, p: P, salt: Buffer.from(salt, 'base64url'), derived };
}

/** Whether `password` matches the stored hash, compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed || password.length > MAX_PASSWORD_LENGTH) return false;
  const { derived, salt, ...params } = parsed;
  const key = await scrypt(password, salt, derived.length, { ...params, maxmem: memoryFor(params) });
  return timingSafeEqual(key, derived);
}

let dummy: Promise<string> | undefined;
/**
 * Spends the time one verification takes, for an unknown account: sign-in then answers as slowly for
 * an e-mail that has no account as for a wrong password, so timing does not tell which e-mails exist.
 */
export async function verifyNothing(password: string): Promise<false> {
  dummy ??= hashPassword('not a password of anyone');
  await verifyPassword(password, await dummy);
  return false;
}

/** A random password for a new account: 20 characters of base64url (120 bits). */
export const generatePassword = (): string => randomBytes(15).toString('base64url');

/** Why a chosen password is not acceptable, or undefined when it is. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}
