/**
 * Who a browser is, and signing in with e-mail and password: shared by the consent page
 * (/oauth/authorize) and the account page (/account). Each attempt is claimed from the throttle before
 * its password is checked (per e-mail address and source address, growing delays, never a lockout:
 * lib/access/auth/sign-in-throttle.ts), and checked only when this process has a free check slot; otherwise
 * the answer is at once a 429 that says when to try again. The password is never logged or shown again.
 */
import type { Accounts } from '../access/auth/accounts.js';
import type { CheckSlots, SignInThrottle } from '../access/auth/sign-in-throttle.js';
import { isActiveUser, type UserRecord } from '../access/auth/users.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { formOf } from './form.js';
import { errorPage } from './html.js';
import { csrfMatches, type Session, type SessionRecord, type Sessions } from './session.js';

export interface SignInDeps {
  accounts: Accounts;
  sessions: Sessions;
  /** Claims attempts and counts failures per e-mail and source address. */
  throttle: SignInThrottle;
  /** Password checks this process runs at once. */
  checks: CheckSlots;
}

/** The signed-in user of the session, when it still exists and is active. */
export async function signedInUser(deps: Pick<SignInDeps, 'accounts'>, session: SessionRecord | undefined): Promise<UserRecord | undefined> {
  if (session?.userId === undefined) return undefined;
  const user = await deps.accounts.byId(session.userId);
  return user && isActiveUser(user.id, user) ? user : undefined;
}

/**
 * A form posted to a page: its fields and the browser's session, when the form carries that
 * session's CSRF token; otherwise the 403 page to answer (`again` says how to start over).
 */
export async function postedForm(
  deps: Pick<SignInDeps, 'sessions'>,
  req: HttpRequest,
  again: string,
): Promise<{ form: URLSearchParams; session: SessionRecord } | { refused: HttpResponse }> {
  const form = formOf(req);
  const session = await deps.sessions.load(req);
  if (session && csrfMatches(session, form.get('csrf'))) return { form, session };
  return { refused: errorPage(403, 'This form has expired', `The form was not sent from this page, or it is too old. ${again}`) };
}

export type SignInResult =
  | { ok: true; user: UserRecord; session: Session }
  | { ok: false; status: number; message: string; retryAfterSeconds?: number };

const seconds = (n: number) => (n === 1 ? 'a second' : n < 120 ? `${n} seconds` : `${Math.ceil(n / 60)} minutes`);

/**
 * Signs in with the form's `email` and `password`, once its `csrf` matched the current session's
 * (the caller checks that, as for every form). On success the session is replaced by a new one.
 */
export async function signInWithPassword(
  deps: SignInDeps,
  req: Pick<HttpRequest, 'baseUrl' | 'headers' | 'sourceIp'>,
  form: URLSearchParams,
): Promise<SignInResult> {
  const email = (form.get('email') ?? '').trim().toLowerCase();
  const password = form.get('password') ?? '';
  if (!email || !password) return { ok: false, status: 400, message: 'Enter your e-mail address and password.' };
  const claim = await deps.throttle.claim(email, req.sourceIp);
  if (!claim.ok) {
    const why = claim.running ? 'A sign-in for this e-mail address from your network address is being checked.' : 'Too many wrong passwords for this e-mail address from your network address.';
    return { ok: false, status: 429, retryAfterSeconds: claim.retryAfterSeconds, message: `${why} Try again in ${seconds(claim.retryAfterSeconds)}.` };
  }
  const { attempt } = claim;
  const release = deps.checks.tryAcquire();
  if (!release) {
    await deps.throttle.abandon(attempt);
    return { ok: false, status: 429, retryAfterSeconds: 1, message: 'The service is checking many sign-ins just now. Try again in a second.' };
  }
  let user: UserRecord | undefined;
  try {
    user = await deps.accounts.authenticate(email, password);
  } catch (err) {
    await deps.throttle.abandon(attempt).catch(() => {});
    throw err;
  } finally {
    release();
  }
  if (!user) {
    const delay = await deps.throttle.failed(attempt);
    const wait = delay ? ` Wait ${seconds(delay)} before the next try.` : '';
    return { ok: false, status: 401, message: `The e-mail address or password is not right.${wait}` };
  }
  await deps.throttle.succeeded(attempt);
  return { ok: true, user, session: await deps.sessions.signIn(req, user.id) };
}
