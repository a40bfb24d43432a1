/**
 * API keys through the API (functions/api-keys/*, our extension: CloudConvert has no such endpoints):
 * who may make which key, and a key's shape in answers. The secret is in the answer to its creation
 * only; neither it nor its hash is ever listed.
 *
 * The rules: a new key's scopes are a subset of the caller's (a key never widens what made it); a
 * sandbox credential makes only sandbox keys; an OAuth access token of a third-party application
 * makes none (a key would outlive the application's grant: revoking the application must end what it
 * could do), while API keys and the console's own client (lib/web/console/token.ts) may.
 */
import { forbidden, invalid } from '../../kernel/errors.js';
import { toIsoSeconds } from '../../kernel/time.js';
import type { Principal } from '../../http/types.js';
import type { ApiKeyRecord } from '../../access/auth/keys.js';
import type { Scope } from '../../access/auth/scopes.js';
import { CONSOLE_CLIENT_ID } from '../../web/console/token.js';

export const apiKeyView = (k: ApiKeyRecord) => ({
  id: k.keyId,
  name: k.name,
  scopes: k.scopes,
  sandbox: k.sandbox === true,
  created_at: toIsoSeconds(k.createdAt),
  revoked_at: k.revokedAt ? toIsoSeconds(k.revokedAt) : null,
});

/** An API key, or the console's token; never a third-party application's token, nor a credential of unknown kind. */
export function assertMayCreateKeys(principal: Principal): void {
  if (principal.kind === 'api-key') return;
  if (principal.kind === 'oauth' && principal.clientId === CONSOLE_CLIENT_ID) return;
  throw forbidden('An OAuth application’s access token cannot create API keys: a key would outlive the application’s grant. Use an API key or the console.');
}

/**
 * Whether the new key is a sandbox key: a sandbox credential's always (asking for a live one is 422),
 * a live credential's when asked. Its scopes must all be the caller's (422 naming `scopes`).
 */
export function checkNewKey(principal: Principal, ask: { scopes: Scope[]; sandbox?: boolean }): { sandbox: boolean } {
  const fields: Record<string, string[]> = {};
  const beyond = ask.scopes.filter((s) => !principal.scopes.includes(s));
  if (beyond.length) fields.scopes = [`A new key can hold only scopes of the credential that makes it; this one lacks ${beyond.join(', ')}.`];
  if (principal.sandbox && ask.sandbox === false) fields.sandbox = ['A sandbox credential makes sandbox keys only.'];
  if (Object.keys(fields).length) throw invalid('The given data was invalid.', fields);
  return { sandbox: principal.sandbox || ask.sandbox === true };
}

/** The account's limit of live keys (MAX_API_KEYS_PER_USER): 422, under `api_keys` since no field of the request is at fault. */
export function checkKeyCount(live: number, max: number): void {
  if (live >= max) throw invalid('The given data was invalid.', { api_keys: [`An account holds at most ${max} live API keys; revoke one first.`] });
}
