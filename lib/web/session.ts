/**
 * Browser sessions of the sign-in, consent and account pages, and their CSRF tokens.
 *
 * The cookie holds a random session id (256 bits); the table holds only its SHA-256, with the user
 * once signed in, a CSRF token and `expiresAt` (TTL plus a read-time check). A visitor gets an
 * anonymous session when a form is first shown, so the sign-in form is protected too (login CSRF);
 * signing in replaces it with a new id (no fixation). Every form carries the session's CSRF token and
 * every post must present it (compared in constant time), on top of the cookie's SameSite=Lax.
 *
 * The cookie is HttpOnly, SameSite=Lax, Path=/; over https it is also Secure and named with the
 * `__Host-` prefix, which browsers accept only from a secure origin without a Domain.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { HttpRequest } from '../http/types.js';
import { epochSeconds, type StateStore } from '../adapters/state/port.js';

export interface SessionRecord {
  pk: string;
  sk: 'session';
  csrf: string;
  userId?: number;
  createdAt: string;
  expiresAt: number;
  [k: string]: unknown;
}

/** How long an anonymous session (a sign-in form not yet sent) lasts. */
const ANONYMOUS_SECONDS = 3600;

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const sessionKey = (id: string) => ({ pk: `websession#${sha256(id)}`, sk: 'session' as const });
const isSecure = (req: Pick<HttpRequest, 'baseUrl'>) => req.baseUrl.startsWith('https://');
export const cookieName = (req: Pick<HttpRequest, 'baseUrl'>) => (isSecure(req) ? '__Host-session' : 'session');

/** The value of one cookie of the request, or undefined. */
export function cookieOf(req: Pick<HttpRequest, 'headers'>, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Constant-time comparison of a presented CSRF token with the session's. */
export function csrfMatches(session: Pick<SessionRecord, 'csrf'> | undefined, presented: string | null | undefined): boolean {
  if (!session || !presented) return false;
  const a = Buffer.from(sha256(session.csrf), 'hex');
  const b = Buffer.from(sha256(presented), 'hex');
  return timingSafeEqual(a, b);
}

export interface Session {
  record: SessionRecord;
  /** A `Set-Cookie` value when the session is new (send it with the response). */
  setCookie?: string;
}

export class Sessions {
  constructor(
    private readonly store: StateStore,
    private readonly signedInSeconds: number,
  ) {}

  #cookie(req: Pick<HttpRequest, 'baseUrl'>, id: string, maxAge: number): string {
    const attributes = [`${cookieName(req)}=${id}`, 'Path=/', `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Lax'];
    if (isSecure(req)) attributes.push('Secure');
    return attributes.join('; ');
  }

  /** The request's session, or undefined when it has none (or it expired). */
  async load(req: Pick<HttpRequest, 'baseUrl' | 'headers'>): Promise<SessionRecord | undefined> {
    const id = cookieOf(req, cookieName(req));
    if (!id || id.length > 100) return undefined;
    return this.store.get<SessionRecord>(sessionKey(id));
  }

  /** The request's session, or a new anonymous one (with its cookie). */
  async ensure(req: Pick<HttpRequest, 'baseUrl' | 'headers'>): Promise<Session> {
    const record = await this.load(req);
    return record ? { record } : this.#start(req, undefined, ANONYMOUS_SECONDS);
  }

  /** Signs the user in: the old session (if any) ends, a new one with a new id and CSRF token begins. */
  async signIn(req: Pick<HttpRequest, 'baseUrl' | 'headers'>, userId: number): Promise<Session> {
    await this.end(req);
    return this.#start(req, userId, this.signedInSeconds);
  }

  /** Ends the request's session; returns the `Set-Cookie` value that clears the cookie. */
  async end(req: Pick<HttpRequest, 'baseUrl' | 'headers'>): Promise<string> {
    const id = cookieOf(req, cookieName(req));
    if (id && id.length <= 100) await this.store.delete(sessionKey(id));
    return this.#cookie(req, '', 0);
  }

  async #start(req: Pick<HttpRequest, 'baseUrl'>, userId: number | undefined, seconds: number, now = Date.now()): Promise<Session> {
    const id = randomBytes(32).toString('base64url');
    const record: SessionRecord = {
      ...sessionKey(id),
      csrf: randomBytes(32).toString('base64url'),
      ...(userId === undefined ? {} : { userId }),
      createdAt: new Date(now).toISOString(),
      expiresAt: epochSeconds(now) + seconds,
    };
    await this.store.put(record, { condition: { exists: false } });
    return { record, setCookie: this.#cookie(req, id, seconds) };
  }
}
