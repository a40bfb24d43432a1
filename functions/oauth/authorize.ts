/**
 * GET /oauth/authorize: the authorization endpoint (RFC 6749 §4.1.1, §4.2.1). A valid request shows
 * the sign-in and consent page; POST /oauth/authorize is that page's form: the user signs in if
 * needed and allows or denies. Allowed, `response_type=code` redirects with a single-use code (PKCE
 * S256, lib/access/oauth/server.ts), `response_type=token` (implicit, registered clients only) with an access
 * token in the fragment. Denied: `access_denied`. An unknown client or unregistered redirect URI is
 * an error page, never a redirect; a post without the session's CSRF token is refused with a page too.
 */
import { route } from '#lib/http/middleware/route.js';
import type { HttpRequest, HttpResponse } from '#lib/http/types.js';
import { checkAuthorizationRequest, errorLocation, responseLocation, type AuthorizationRequest } from '#lib/access/oauth/authorization-request.js';
import { consentPage } from '#lib/web/consent-page.js';
import { oauthClients, signInDeps, tokenStore } from '#lib/wiring/auth.js';
import { oauthServer } from '#lib/wiring/oauth-server.js';
import { formOf } from '#lib/web/form.js';
import { errorPage, renderPageError } from '#lib/web/html.js';
import { postedForm, signedInUser, signInWithPassword } from '#lib/web/sign-in.js';

const redirect = (location: string, setCookie?: string): HttpResponse => ({
  status: 302,
  headers: { location, 'cache-control': 'no-store', ...(setCookie ? { 'set-cookie': setCookie } : {}) },
});

async function check(params: URLSearchParams): Promise<AuthorizationRequest | HttpResponse> {
  const checked = await checkAuthorizationRequest(params, oauthClients());
  if (checked.kind === 'page') return errorPage(checked.status, checked.title, checked.message);
  if (checked.kind === 'redirect') return redirect(checked.location);
  return checked.request;
}

const isResponse = (x: AuthorizationRequest | HttpResponse): x is HttpResponse => 'status' in x;

async function show(req: HttpRequest): Promise<HttpResponse> {
  const request = await check(req.searchParams);
  if (isResponse(request)) return request;
  const deps = signInDeps();
  const session = await deps.sessions.ensure(req);
  const user = await signedInUser(deps, session.record);
  return consentPage({ request, csrf: session.record.csrf, user, setCookie: session.setCookie });
}

async function decide(req: HttpRequest): Promise<HttpResponse> {
  const request = await check(formOf(req));
  if (isResponse(request)) return request;
  const deps = signInDeps();
  const posted = await postedForm(deps, req, 'Go back to the application and start again.');
  if ('refused' in posted) return posted.refused;
  const { form, session } = posted;
  if (form.get('decision') === 'deny') {
    req.log.info('oauth authorization denied', { clientId: request.client.id });
    return redirect(errorLocation(request.redirectUri, request.responseType, 'access_denied', 'the user declined the request', request.state));
  }
  if (form.get('decision') !== 'allow') return errorPage(400, 'Choose Allow or Deny', 'The form was sent without a decision.');

  let user = await signedInUser(deps, session);
  let setCookie: string | undefined;
  if (!user) {
    const result = await signInWithPassword(deps, req, form);
    if (!result.ok) {
      return consentPage({ request, csrf: session.csrf, error: result.message, status: result.status, retryAfterSeconds: result.retryAfterSeconds });
    }
    user = result.user;
    setCookie = result.session.setCookie;
  }

  const chosen = new Set(form.getAll('scope_choice'));
  const scopes = request.scopes.filter((s) => chosen.has(s));
  if (!scopes.length) {
    return redirect(errorLocation(request.redirectUri, request.responseType, 'access_denied', 'the user allowed none of the scopes', request.state), setCookie);
  }
  const grant = await tokenStore().approve(user.id, request.client.id, scopes);
  const subject = { userId: user.id, clientId: request.client.id, grantId: grant.grantId };
  req.log.info('oauth authorization granted', { clientId: request.client.id, userId: user.id, responseType: request.responseType, scopes });
  if (request.responseType === 'code') {
    const params = { ...request.params, redirect_uri: request.redirectUri, scope: scopes.join(' ') };
    return redirect(await oauthServer().issueCode(params, subject, request.redirectUriInRequest), setCookie);
  }
  const { accessToken, expiresIn } = await tokenStore().issueImplicit(subject, scopes);
  const location = responseLocation(request.redirectUri, 'token', {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: String(expiresIn),
    scope: scopes.join(' '),
    state: request.state,
  });
  return redirect(location, setCookie);
}

export const handler = route({ render: renderPageError, body: 'raw' }, (req) => (req.method === 'POST' ? decide(req) : show(req)));
