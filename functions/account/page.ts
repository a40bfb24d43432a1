/**
 * GET /account: the account page. Signed out, a sign-in form; signed in, the account, its usage of
 * the last 30 days as a chart, and the applications the user authorized, each revocable. POST /account is every form of the page
 * (`action`: sign-in, sign-out, revoke), checked against the session's CSRF token, answered with a
 * 303 back to the page.
 */
import { accountPage, authorizedAppsPart, profilePart, safeNext, signInPage, usagePart } from '#lib/file-api/account/page.js';
import { authorizedApps } from '#lib/file-api/account/authorizations.js';
import { revokeConsoleTokens } from '#lib/web/console/token.js';
import { usageRange } from '#lib/file-api/account/usage.js';
import { usage } from '#lib/wiring/account.js';
import type { UserRecord } from '#lib/access/auth/users.js';
import { route } from '#lib/http/middleware/route.js';
import type { HttpRequest, HttpResponse } from '#lib/http/types.js';
import { oauthClients, signInDeps, tokenStore } from '#lib/wiring/auth.js';
import { errorPage, renderPageError, seeOther } from '#lib/web/html.js';
import { postedForm, signedInUser, signInWithPassword } from '#lib/web/sign-in.js';

const appsOf = (user: UserRecord) => authorizedApps({ tokens: tokenStore(), clients: oauthClients() }, user.id);

async function show(req: HttpRequest): Promise<HttpResponse> {
  const deps = signInDeps();
  const session = await deps.sessions.ensure(req);
  const user = await signedInUser(deps, session.record);
  const csrf = session.record.csrf;
  if (!user) return signInPage({ csrf, setCookie: session.setCookie });
  // The last 30 days, as GET /v2/users/me/usage answers by default.
  const { from, to } = usageRange({});
  const [apps, report] = await Promise.all([appsOf(user), usage().report(user.id, from, to)]);
  const parts = [profilePart(user), usagePart(report), authorizedAppsPart(apps, csrf)];
  return accountPage({ user, csrf, parts, setCookie: session.setCookie });
}

async function act(req: HttpRequest): Promise<HttpResponse> {
  const deps = signInDeps();
  const posted = await postedForm(deps, req, 'Open your account page again.');
  if ('refused' in posted) return posted.refused;
  const { form, session } = posted;
  const action = form.get('action');
  if (action === 'sign-in') {
    const result = await signInWithPassword(deps, req, form);
    const next = form.get('next') ?? undefined;
    if (!result.ok) return signInPage({ csrf: session.csrf, error: result.message, status: result.status, retryAfterSeconds: result.retryAfterSeconds, next });
    return seeOther(safeNext(next), { 'set-cookie': result.session.setCookie! });
  }
  if (action === 'sign-out') {
    const user = await signedInUser(deps, session);
    if (user) await revokeConsoleTokens(tokenStore(), user.id);
    return seeOther('/account', { 'set-cookie': await deps.sessions.end(req) });
  }
  const user = await signedInUser(deps, session);
  if (!user) return seeOther('/account');
  if (action === 'revoke') {
    const clientId = form.get('client_id') ?? '';
    const revoked = await tokenStore().revokeGrant(user.id, clientId);
    req.log.info('oauth grant revoked by the user', { userId: user.id, clientId, revoked });
    return seeOther('/account');
  }
  return errorPage(400, 'Unknown action', 'The form asked for something this page does not do.');
}

export const handler = route({ render: renderPageError, body: 'raw' }, (req) => (req.method === 'POST' ? act(req) : show(req)));
