/**
 * PKCE (RFC 7636) at the authorization endpoint: which challenges a request may carry. S256 only:
 * `plain` is refused, and so is a challenge without a method (RFC 7636 §4.3 would read it as plain).
 * A public client must send one; a confidential client may. The token endpoint's verification of
 * `code_verifier` against the stored challenge is @node-oauth/oauth2-server's (constant-time, and the
 * code is consumed before the check, so a wrong verifier cannot be retried).
 */

/** BASE64URL(SHA-256(verifier)) is always 43 characters of the base64url alphabet. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export type PkceCheck = { ok: true; challenge?: { codeChallenge: string; codeChallengeMethod: 'S256' } } | { ok: false; message: string };

export function checkPkce(params: { code_challenge?: string; code_challenge_method?: string }, client: { public: boolean }): PkceCheck {
  const challenge = params.code_challenge;
  const method = params.code_challenge_method;
  if (!challenge) {
    if (method) return { ok: false, message: 'code_challenge_method was given without code_challenge' };
    if (client.public) return { ok: false, message: 'a public client must send code_challenge with code_challenge_method=S256 (PKCE)' };
    return { ok: true };
  }
  if (method === 'plain') return { ok: false, message: 'code_challenge_method plain is not supported; use S256' };
  if (method !== 'S256') return { ok: false, message: method ? `code_challenge_method ${method} is not supported; use S256` : 'code_challenge_method=S256 is required with code_challenge' };
  if (!S256_CHALLENGE.test(challenge)) return { ok: false, message: 'code_challenge must be the 43-character base64url SHA-256 of the code verifier' };
  return { ok: true, challenge: { codeChallenge: challenge, codeChallengeMethod: 'S256' } };
}
