/**
 * Who a browser is, and signing in with e-mail and password: shared by the consent page
 * (/oauth/authorize) and the account page (/account). Failed attempts are counted per e-mail address
 * (SIGN_IN_MAX_FAILURES per quarter hour) so a password cannot be guessed at the speed of requests;
 * the password is never logged or shown again.
 */
import type { Accounts } from '../auth/accounts.js';
import type { RateLimiter } from '../auth/rate-limit.js';
import { isActiveUser, type UserRecord } from '../auth/users.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { formOf } from './form.js';
import { errorPage } from './html.js';
import { csrfMatches, type Session, type SessionRecord, type Sessions } from './session.js';

export interface SignInDeps {
  accounts: Accounts;
  sessions: Sessions;
  /** Counts failed sign-ins per e-mail address. */
  failures: RateLimiter;
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
  | { ok: false; status: number; message: string };

/**
 * Signs in with the form's `email` and `password`, once its `csrf` matched the current session's
 * (the caller checks that, as for every form). On success the session is replaced by a new one.
 */
export async function signInWithPassword(deps: SignInDeps, req: Pick<HttpRequest, 'baseUrl' | 'headers'>, form: URLSearchParams): Promise<SignInResult> {
  const email = (form.get('email') ?? '').trim().toLowerCase();
  const password = form.get('password') ?? '';
  if (!email || !password) return { ok: false, status: 400, message: 'Enter your e-mail address and password.' };
  const counter = `signin:${email}`;
  if (!(await deps.failures.peek(counter)).remaining) {
    return { ok: false, status: 429, message: 'Too many failed sign-ins for this e-mail address. Try again in a quarter of an hour.' };
  }
  const user = await deps.accounts.authenticate(email, password);
  if (!user) {
    await deps.failures.consume(counter);
    return { ok: false, status: 401, message: 'The e-mail address or password is not right.' };
  }
  return { ok: true, user, session: await deps.sessions.signIn(req, user.id) };
}
