/**
 * The sign-in and consent page of /oauth/authorize: who asks, for what (each scope in words, each
 * one a checkbox the user may clear), where the browser goes next, and Allow / Deny. One form, posted
 * back to /oauth/authorize with the request's parameters and the session's CSRF token; when nobody is
 * signed in it asks for the e-mail address and password in the same form. No script.
 */
import type { Scope } from '../access/auth/scopes.js';
import type { UserRecord } from '../access/auth/users.js';
import type { HttpResponse } from '../http/types.js';
import { html, page, retryAfterHeader } from './html.js';
import type { AuthorizationRequest } from '../access/oauth/authorization-request.js';
import { SCOPE_WORDS, shortScope } from '../access/oauth/scopes.js';

export interface ConsentView {
  request: AuthorizationRequest;
  csrf: string;
  user?: UserRecord;
  /** Shown above the form (a failed sign-in). */
  error?: string;
  status?: number;
  /** A throttled sign-in's wait (429). */
  retryAfterSeconds?: number;
  setCookie?: string;
}

const scopeItem = (scope: Scope) => html`<li><input type="checkbox" id="scope-${shortScope(scope)}" name="scope_choice" value="${scope}" checked>
<label for="scope-${shortScope(scope)}">${SCOPE_WORDS[scope]}</label> <code class="muted">${shortScope(scope)}</code></li>`;

export function consentPage(view: ConsentView): HttpResponse {
  const { request, user } = view;
  const name = request.client.name;
  const target = new URL(request.redirectUri);
  const where = target.protocol === 'https:' || target.protocol === 'http:' ? target.host : target.protocol.slice(0, -1);
  const hidden = Object.entries(request.params).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  const signIn = user
    ? html`<p class="muted">Signed in as <strong>${user.username}</strong> (${user.email}).</p>`
    : html`<h2>Sign in to continue</h2>
<label for="email">E-mail address</label><input type="email" id="email" name="email" autocomplete="username" required>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>`;
  const body = html`<h1>Authorize ${name}</h1>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="csrf" value="${view.csrf}">${hidden}
<p><strong>${name}</strong> asks to use your account to:</p>
<ul class="scopes">${request.scopes.map(scopeItem)}</ul>
<p class="muted">Clear a box to leave that permission out. ${request.responseType === 'token' ? 'The application gets an access token directly in the browser (implicit grant). ' : ''}You will be sent back to <strong>${where}</strong>. You can revoke this at any time on your account page.</p>
${signIn}
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary" formnovalidate>Deny</button></div>
</form>`;
  return page({
    title: `Authorize ${name}`,
    body,
    status: view.status,
    headers: { ...(view.setCookie ? { 'set-cookie': view.setCookie } : {}), ...retryAfterHeader(view.retryAfterSeconds) },
  });
}
