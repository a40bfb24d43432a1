/**
 * The account page (/account), server-rendered: a sign-in form, or, once signed in, the page built
 * from parts (sections), each an `Html` fragment. To add a section, render it and put it in the list
 * functions/account/page.ts passes to `accountPage`. Every form carries the session's CSRF token.
 */
import type { UserRecord } from '../../access/auth/users.js';
import type { HttpResponse } from '../../http/types.js';
import { SCOPE_WORDS, shortScope } from '../../access/oauth/scopes.js';
import type { AuthorizedApp } from './authorizations.js';
import type { Scope } from '../../access/auth/scopes.js';
import { html, Html, page, retryAfterHeader } from '../../web/html.js';
import { creditsView } from './credits.js';
import type { UsageReport } from './usage.js';
import { renderUsageChart } from './usage-chart.js';

const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;
const cookieHeader = (setCookie?: string) => (setCookie ? { 'set-cookie': setCookie } : undefined);

/**
 * Where a sign-in may send the browser afterwards (`next`): the account page or a console page, never
 * another address (no open redirect).
 */
export function safeNext(next: string | null | undefined): string {
  return next && /^\/console(\/[A-Za-z0-9_/-]{0,200})?$/.test(next) ? next : '/account';
}

export function signInPage(opts: { csrf: string; error?: string; status?: number; retryAfterSeconds?: number; setCookie?: string; next?: string }): HttpResponse {
  const body = html`<h1>Sign in to your account</h1>
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<form method="post" action="/account">${csrfField(opts.csrf)}<input type="hidden" name="action" value="sign-in">${opts.next ? html`<input type="hidden" name="next" value="${safeNext(opts.next)}">` : ''}
<label for="email">E-mail address</label><input type="email" id="email" name="email" autocomplete="username" required>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div></form>`;
  return page({ title: 'Sign in', body, status: opts.status, headers: { ...cookieHeader(opts.setCookie), ...retryAfterHeader(opts.retryAfterSeconds) } });
}

/** The signed-in page: who, the sections, and sign-out. */
export function accountPage(opts: { user: UserRecord; csrf: string; parts: Html[]; setCookie?: string }): HttpResponse {
  const { user } = opts;
  const body = html`<h1>Your account</h1>
<p>Signed in as <strong>${user.username}</strong> (${user.email}). <a href="/console">Open the console</a> to convert files, follow jobs and manage keys.</p>
${opts.parts}
<form method="post" action="/account">${csrfField(opts.csrf)}<input type="hidden" name="action" value="sign-out">
<div class="actions"><button type="submit" class="secondary">Sign out</button></div></form>`;
  return page({ title: 'Your account', body, wide: true, headers: cookieHeader(opts.setCookie) });
}

/** The account's details, as GET /v2/users/me shows them. */
export function profilePart(user: UserRecord): Html {
  return html`<h2>Account</h2><table><tbody>
<tr><th>Id</th><td>${user.id}</td></tr><tr><th>Name</th><td>${user.username}</td></tr>
<tr><th>E-mail</th><td>${user.email}</td></tr><tr><th>Credits</th><td>${user.creditsUnlimited ? 'unlimited' : creditsView(user).credits}</td></tr>
</tbody></table>`;
}

export type { AuthorizedApp };

const scopeText = (scope: string) => html`<div>${SCOPE_WORDS[scope as Scope] ?? scope} <code class="muted">${shortScope(scope)}</code></div>`;

/** The applications the user authorized, each with a Revoke button (which ends its tokens). */
export function authorizedAppsPart(apps: AuthorizedApp[], csrf: string): Html {
  if (!apps.length) return html`<h2>Authorized applications</h2><p class="muted">You have not authorized any application.</p>`;
  const rows = apps.map(
    ({ grant, client }) => html`<tr data-client-id="${client.id}"><td><strong>${client.name}</strong></td><td>${grant.scopes.map(scopeText)}</td>
<td>${when(grant.createdAt)}${grant.updatedAt !== grant.createdAt ? html`<div class="muted">again ${when(grant.updatedAt)}</div>` : ''}</td>
<td><form method="post" action="/account">${csrfField(csrf)}<input type="hidden" name="action" value="revoke"><input type="hidden" name="client_id" value="${client.id}">
<button type="submit" class="secondary">Revoke</button></form></td></tr>`,
  );
  return html`<h2>Authorized applications</h2>
<table><thead><tr><th>Application</th><th>Allowed to</th><th>Authorized</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Credits per day over the report's range, as a bar chart (one bar per day), with the totals. */
export function usagePart(report: UsageReport): Html {
  // The chart escapes every text it holds (lib/file-api/account/usage-chart.ts).
  const chart = new Html(renderUsageChart(report.days, { id: 'usage-chart' }));
  return html`<h2>Usage</h2>
<p class="muted">${report.from} to ${report.to} (UTC): ${report.totals.credits} credits, ${report.totals.tasks} tasks, ${report.totals.failed} failed.</p>
<figure class="chart">${chart}</figure>`;
}
