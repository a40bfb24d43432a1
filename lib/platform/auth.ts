/**
 * Per-instance singletons of accounts and OAuth, made from the validated configuration on first use
 * (as lib/platform/clients.ts does for the state store).
 */
import { Accounts } from '../auth/accounts.js';
import { Credentials } from '../auth/credentials.js';
import { ApiKeys } from '../auth/keys.js';
import { RateLimiter } from '../auth/rate-limit.js';
import { config } from '../config.js';
import { OAuthClients } from '../oauth/clients.js';
import { TokenStore } from '../oauth/tokens.js';
import { Sessions } from '../web/session.js';
import type { SignInDeps } from '../web/sign-in.js';
import { once, stateStore } from './clients.js';

export const accounts = once(() => {
  const c = config();
  return new Accounts(stateStore(), { username: c.ACCOUNT_USERNAME, email: c.ACCOUNT_EMAIL, credits: c.ACCOUNT_CREDITS });
});

export const tokenStore = once(() => {
  const c = config();
  return new TokenStore(stateStore(), {
    codeSeconds: c.OAUTH_CODE_SECONDS,
    accessSeconds: c.OAUTH_ACCESS_TOKEN_SECONDS,
    refreshSeconds: c.OAUTH_REFRESH_TOKEN_SECONDS,
  });
});

export const oauthClients = once(() => new OAuthClients(stateStore()));

/** API keys and OAuth access tokens, one check (the file API's and the Google-dialect routes' guards). */
export const bearerCredentials = once(() => new Credentials(stateStore(), new ApiKeys(stateStore()), tokenStore()));

/** Browser sessions and sign-in of the consent and account pages. */
export const signInDeps = once(
  (): SignInDeps => ({
    accounts: accounts(),
    sessions: new Sessions(stateStore(), config().SESSION_SECONDS),
    failures: new RateLimiter(stateStore(), config().SIGN_IN_MAX_FAILURES, 15 * 60),
  }),
);
