/**
 * The authorization request (RFC 6749 §4.1.1 and §4.2.1), checked in the order the RFC asks: first
 * the client and its redirect URI, whose failure is an error page and never a redirect (§4.1.2.1: the
 * user agent must not be sent to an unverified URI); then everything else, whose failure goes back to
 * the client's redirect URI as `error` (in the query for `response_type=code`, in the fragment for
 * `token`), with `state` echoed.
 */
import type { Scope } from '../auth/scopes.js';
import type { ClientRecord, OAuthClients } from './clients.js';
import { checkPkce } from './pkce.js';
import { matchRedirectUri } from './redirect-uris.js';
import { parseScopeParam } from './scopes.js';

export const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;
export type AuthorizeParam = (typeof AUTHORIZE_PARAMS)[number];

export type OAuthErrorCode =
  | 'invalid_request'
  | 'unauthorized_client'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'server_error';

export interface AuthorizationRequest {
  responseType: 'code' | 'token';
  client: ClientRecord;
  redirectUri: string;
  /** Whether the request named `redirect_uri` (the token request must then repeat it). */
  redirectUriInRequest: boolean;
  scopes: Scope[];
  state?: string;
  pkce?: { codeChallenge: string; codeChallengeMethod: 'S256' };
  /** The request's parameters, to carry through the consent form. */
  params: Partial<Record<AuthorizeParam, string>>;
}

export type CheckedRequest =
  | { kind: 'ok'; request: AuthorizationRequest }
  | { kind: 'page'; status: number; title: string; message: string }
  | { kind: 'redirect'; location: string };

/** Where the authorization response goes: `code` answers in the query, `token` in the fragment. */
export function responseLocation(redirectUri: string, responseType: string | undefined, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  const values = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  if (responseType === 'token') {
    url.hash = new URLSearchParams(values).toString();
  } else {
    for (const [k, v] of values) url.searchParams.set(k, v);
  }
  return url.href;
}

export function errorLocation(
  redirectUri: string,
  responseType: string | undefined,
  error: OAuthErrorCode,
  description: string,
  state: string | undefined,
): string {
  return responseLocation(redirectUri, responseType, { error, error_description: description, state });
}

/** RFC 6749 appendix A.5: `state` is VSCHAR (printable ASCII); long values are refused too. */
const isVschar = (s: string) => s.length <= 2000 && [...s].every((c) => c >= ' ' && c <= '~');

export async function checkAuthorizationRequest(params: URLSearchParams, clients: OAuthClients): Promise<CheckedRequest> {
  const page = (message: string, status = 400): CheckedRequest => ({ kind: 'page', status, title: 'This sign-in link is not valid', message });
  const repeated = AUTHORIZE_PARAMS.filter((name) => params.getAll(name).length > 1);
  if (repeated.includes('client_id') || repeated.includes('redirect_uri')) return page(`The request names ${repeated.join(' and ')} more than once.`);

  const clientId = params.get('client_id');
  if (!clientId) return page('The request has no client_id: the application that sent you here is misconfigured.');
  const client = await clients.get(clientId);
  if (!client) return page('No application is registered with this client_id.');

  const given = params.get('redirect_uri') || undefined;
  let redirectUri: string;
  if (given !== undefined) {
    const match = matchRedirectUri(client.redirectUris, given);
    if (!match) return page(`The redirect_uri is not one that ${client.name} registered, so you are not sent back to it.`);
    redirectUri = match;
  } else if (client.redirectUris.length === 1) {
    redirectUri = client.redirectUris[0]!;
  } else {
    return page(`${client.name} registered several redirect URIs, so the request must name one (redirect_uri).`);
  }

  // From here on the client hears about problems at its redirect URI.
  const responseType = params.get('response_type') ?? undefined;
  const rawState = params.get('state') ?? undefined;
  const state = rawState !== undefined && isVschar(rawState) ? rawState : undefined;
  const fail = (error: OAuthErrorCode, description: string): CheckedRequest => ({
    kind: 'redirect',
    location: errorLocation(redirectUri, responseType, error, description, state),
  });
  if (repeated.length) return fail('invalid_request', `${repeated.join(', ')} must not be repeated`);
  if (rawState !== undefined && state === undefined) return fail('invalid_request', 'state must be printable ASCII of at most 2000 characters');
  if (!responseType) return fail('invalid_request', 'response_type is required (code, or token where the client may use the implicit grant)');
  if (responseType !== 'code' && responseType !== 'token') return fail('unsupported_response_type', 'response_type must be code or token');
  if (responseType === 'token' && !client.implicit) {
    return fail('unauthorized_client', 'this client is not allowed the implicit grant; use response_type=code with PKCE');
  }
  const scope = parseScopeParam(params.get('scope') ?? undefined);
  if (!scope.ok) return fail('invalid_scope', `unknown scope ${scope.unknown.join(', ')}`);
  if (!scope.scopes.length) return fail('invalid_scope', 'name the scopes the application needs (scope)');
  let pkce: AuthorizationRequest['pkce'];
  if (responseType === 'code') {
    const check = checkPkce({ code_challenge: params.get('code_challenge') ?? undefined, code_challenge_method: params.get('code_challenge_method') ?? undefined }, client);
    if (!check.ok) return fail('invalid_request', check.message);
    pkce = check.challenge;
  }
  const carried: Partial<Record<AuthorizeParam, string>> = {};
  for (const name of AUTHORIZE_PARAMS) {
    const value = params.get(name);
    if (value !== null && value !== '') carried[name] = value;
  }
  return {
    kind: 'ok',
    request: { responseType, client, redirectUri, redirectUriInRequest: given !== undefined, scopes: scope.scopes, state, pkce, params: carried },
  };
}
