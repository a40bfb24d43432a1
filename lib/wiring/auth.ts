/**
 * Per-instance singletons of accounts, OAuth clients and browser sign-in, made from the validated
 * configuration on first use (as lib/wiring/clients.ts does for the state store).
 */
import { Accounts } from '../access/auth/accounts.js';
import { CheckSlots, SignInThrottle } from '../access/auth/sign-in-throttle.js';
import { config } from '../kernel/config.js';
import { OAuthClients } from '../access/oauth/clients.js';
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
export const signInDeps = once((): SignInDeps => {
  const c = config();
  return {
    accounts: accounts(),
    sessions: new Sessions(stateStore(), c.SESSION_SECONDS),
    throttle: new SignInThrottle(stateStore(), {
      freeFailures: c.SIGN_IN_FREE_FAILURES,
      delaySeconds: c.SIGN_IN_DELAY_SECONDS,
      maxDelaySeconds: c.SIGN_IN_MAX_DELAY_SECONDS,
    }),
    checks: new CheckSlots(c.SIGN_IN_CONCURRENT_CHECKS),
  };
});
