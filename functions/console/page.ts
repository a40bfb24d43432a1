/**
 * The console's page and its session endpoints (the app itself is console/src, served by
 * functions/console/assets.ts), and the service's root page (`/`), which links to it:
 * - GET /console and GET /console/{page+}: the app's shell for a signed-in browser; otherwise the
 *   sign-in form of the account page, which comes back here.
 * - POST /console/token: an access token of the session's user for the API (lib/web/console/token.ts),
 *   only with the session's CSRF token in `x-csrf-token`; `?base=sandbox` a sandbox token, for the
 *   sandbox base (/sandbox/v2).
 * - POST /console/sign-out: ends the session and the console's tokens.
 * - GET /console/sign-in?token=…: the local platform's one-click sign-in (lib/web/console/sign-in-link.ts).
 */
import { signInPage } from '#lib/file-api/account/page.js';
import { config } from '#lib/kernel/config.js';
import { route } from '#lib/http/middleware/route.js';
import type { HttpRequest, HttpResponse } from '#lib/http/types.js';
import { uploadOrigins } from '#lib/wiring/files.js';
import { signInDeps, tokenStore } from '#lib/wiring/auth.js';
import { stateStore } from '#lib/wiring/clients.js';
import { readConsoleManifest } from '#lib/web/console/assets.js';
import { consoleShell, homePage, socketAddress } from '#lib/web/console/shell.js';
import { signInLinkValid } from '#lib/web/console/sign-in-link.js';
import { consoleAccessToken, revokeConsoleTokens } from '#lib/web/console/token.js';
import { errorPage, renderPageError, seeOther } from '#lib/web/html.js';
import { csrfMatches } from '#lib/web/session.js';
import { signedInUser } from '#lib/web/sign-in.js';
import type { UserRecord } from '#lib/access/auth/users.js';

const NO_STORE = { 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' };
const jsonAnswer = (status: number, body: unknown): HttpResponse => ({ status, headers: NO_STORE, body: JSON.stringify(body) });

/** Where upload forms post (each region's bucket), for the page's connect-src; the same for the instance's life. */
let storage: string[] | undefined;
const storageOrigins = () => (storage ??= uploadOrigins());

/** The signed-in user of the request's session, with the session (undefined user when signed out). */
async function who(req: HttpRequest) {
  const deps = signInDeps();
  const session = await deps.sessions.load(req);
  return { deps, session, user: await signedInUser(deps, session) };
}

async function show(req: HttpRequest): Promise<HttpResponse> {
  const deps = signInDeps();
  const session = await deps.sessions.ensure(req);
  const user = await signedInUser(deps, session.record);
  if (!user) return signInPage({ csrf: session.record.csrf, setCookie: session.setCookie, next: req.path });
  const manifest = await readConsoleManifest();
  const socket = socketAddress(config().SOCKET_ENDPOINT);
  return consoleShell({
    manifest,
    config: { csrf: session.record.csrf, user: { id: user.id, username: user.username, email: user.email }, socket },
    connect: [...(socket ? [socket.url] : []), ...storageOrigins()],
  });
}

/** The session's checks for the two POST endpoints: signed in, and the CSRF token in its header. */
async function sessionPost(req: HttpRequest): Promise<{ refused: HttpResponse } | { user: UserRecord }> {
  const { session, user } = await who(req);
  if (!session || !csrfMatches(session, req.headers['x-csrf-token'])) return { refused: jsonAnswer(403, { message: 'Open the console again: this request did not come from its page.', code: 'FORBIDDEN' }) };
  if (!user) return { refused: jsonAnswer(401, { message: 'Sign in again.', code: 'UNAUTHENTICATED' }) };
  return { user };
}

async function token(req: HttpRequest): Promise<HttpResponse> {
  const checked = await sessionPost(req);
  if ('refused' in checked) return checked.refused;
  const issued = await consoleAccessToken({ store: stateStore(), tokens: tokenStore() }, checked.user.id, req.query.base === 'sandbox');
  return jsonAnswer(200, { access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn, scope: issued.scopes.join(' ') });
}

async function signOut(req: HttpRequest): Promise<HttpResponse> {
  const checked = await sessionPost(req);
  if ('refused' in checked) return checked.refused;
  await revokeConsoleTokens(tokenStore(), checked.user.id);
  return { status: 204, headers: { 'cache-control': 'no-store', 'set-cookie': await signInDeps().sessions.end(req) } };
}

async function linkSignIn(req: HttpRequest): Promise<HttpResponse> {
  const valid = signInLinkValid({ configuredHash: config().LOCAL_SIGN_IN_LINK_HASH, baseUrl: req.baseUrl, presented: req.query.token });
  if (!valid) return errorPage(404, 'No such sign-in link', 'This link does not sign anyone in here. Sign in with your e-mail address and password at /console.');
  const deps = signInDeps();
  // The built-in account (user 1), made on first use as every other path does.
  const user = await deps.accounts.byId(1);
  if (!user) return errorPage(404, 'No such sign-in link', 'The built-in account does not exist.');
  req.log.info('signed in with the local sign-in link', { userId: user.id });
  const session = await deps.sessions.signIn(req, user.id);
  return seeOther('/console', { 'set-cookie': session.setCookie! });
}

export const handler = route({ render: renderPageError, body: 'raw' }, async (req) => {
  if (req.method === 'POST' && req.path === '/console/token') return token(req);
  if (req.method === 'POST' && req.path === '/console/sign-out') return signOut(req);
  if (req.method === 'GET' && req.path === '/') return homePage();
  if (req.method === 'GET' && req.path === '/console/sign-in') return linkSignIn(req);
  if (req.method === 'GET') return show(req);
  return errorPage(405, 'Not allowed', 'The console answers GET, and POST at /console/token and /console/sign-out.');
});
