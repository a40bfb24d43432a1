/**
 * Per-instance singletons of accounts, OAuth clients and browser sign-in, made from the validated
 * configuration on first use (as lib/platform/clients.ts does for the state store).
 */
import { Accounts } from '../auth/accounts.js';
import { RateLimiter } from '../auth/rate-limit.js';
import { config } from '../config.js';
import { OAuthClients } from '../oauth/clients.js';
import { Sessions } from '../web/session.js';
import type { SignInDeps } from '../web/sign-in.js';
import { once, stateStore } from './clients.js';

export { tokenStore } from './credentials.js';

export const accounts = once(() => {
  const c = config();
  return new Accounts(stateStore(), { username: c.ACCOUNT_USERNAME, email: c.ACCOUNT_EMAIL, credits: c.ACCOUNT_CREDITS });
});

export const oauthClients = once(() => new OAuthClients(stateStore()));

/** Browser sessions and sign-in of the consent and account pages. */
export const signInDeps = once(
  (): SignInDeps => ({
    accounts: accounts(),
    sessions: new Sessions(stateStore(), config().SESSION_SECONDS),
    failures: new RateLimiter(stateStore(), config().SIGN_IN_MAX_FAILURES, 15 * 60),
  }),
);
