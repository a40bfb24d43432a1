/**
 * The bearer-credential check of this function instance (API keys and OAuth access tokens), and the
 * OAuth token store it reads. Kept apart from lib/wiring/auth.ts so that every /v2 function bundles
 * only this, not accounts, passwords or sessions.
 */
import { Credentials } from '../http/credentials.js';
import { ApiKeys } from '../access/auth/keys.js';
import { config } from '../kernel/config.js';
import { TokenStore } from '../access/oauth/tokens.js';
import { once, stateStore } from './clients.js';

export const tokenStore = once(() => {
  const c = config();
  return new TokenStore(stateStore(), {
    codeSeconds: c.OAUTH_CODE_SECONDS,
    accessSeconds: c.OAUTH_ACCESS_TOKEN_SECONDS,
    refreshSeconds: c.OAUTH_REFRESH_TOKEN_SECONDS,
  });
});

/** API keys and OAuth access tokens, one check (the file API's and the Google-dialect routes' guards). */
export const bearerCredentials = once(() => new Credentials(stateStore(), new ApiKeys(stateStore()), tokenStore()));
