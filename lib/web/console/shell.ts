/**
 * The console's page: one HTML shell for every console path (the app routes in the browser), linking
 * the built script and style sheet, with the page's configuration in a data attribute (no inline
 * script). Its Content-Security-Policy allows scripts and styles from this service only, and
 * connections to this service, its live-events socket and the storage that upload forms post to.
 */
import { html, Html, page, PAGE_HEADERS } from '../html.js';
import { trimEnd } from '../../kernel/text.js';
import type { HttpResponse } from '../../http/types.js';
import { CONSOLE_ASSETS_PATH, type ConsoleManifest } from './assets.js';

export interface ShellConfig {
  csrf: string;
  user: { id: number; username: string; email: string };
  socket: { url: string; path: string } | null;
}

/** socket.io's address for the browser, from the WebSocket API's management endpoint (SOCKET_ENDPOINT). */
export function socketAddress(endpoint: string | undefined): ShellConfig['socket'] {
  if (!endpoint) return null;
  const url = new URL(endpoint);
  const scheme = url.protocol === 'https:' ? 'wss:' : 'ws:';
  // API Gateway puts the stage in the path (`/{stage}`); serverless-offline answers socket.io's default.
  const path = trimEnd(url.pathname, '/');
  return { url: `${scheme}//${url.host}`, path: path || '/socket.io' };
}

export function consoleCsp(connect: readonly string[]): string {
  const sources = [...new Set(["'self'", ...connect])].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    `connect-src ${sources}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function consoleShell(opts: { manifest: ConsoleManifest; config: ShellConfig; connect: readonly string[]; headers?: Record<string, string> }): HttpResponse {
  const { manifest } = opts;
  const doc = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark"><title>Console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_ASSETS_PATH}/${manifest.style}">
<script type="module" src="${CONSOLE_ASSETS_PATH}/${manifest.script}"></script>
</head><body><div id="app" data-config="${JSON.stringify(opts.config)}"><noscript>${new Html('<p>The console needs JavaScript. Everything it does, the API does too: see <a href="/account">your account</a>.</p>')}</noscript></div></body></html>`;
  return {
    status: 200,
    headers: { ...PAGE_HEADERS, 'content-security-policy': consoleCsp(opts.connect), ...opts.headers },
    body: doc.value,
  };
}

/** The service's root (`/`): what is here, for a person who opened the base URL in a browser. */
export function homePage(): HttpResponse {
  const body = html`<h1>This service</h1>
<p>A file-processing API in the CloudConvert v2 dialect, a creature GraphQL server, and Google-dialect label limits and migration assessment.</p>
<ul>
<li><a href="/console">Console</a>: convert files, follow jobs, build a job and copy it as code, manage keys</li>
<li><a href="/graphql">GraphQL explorer</a></li>
<li><a href="/account">Account</a>: sign-in, usage, authorized applications</li>
</ul>
<p class="muted">The file API is at <code>/v2</code> (<code>Authorization: Bearer &lt;key&gt;</code>), OAuth 2.0 at <code>/oauth/authorize</code>.</p>`;
  return page({ title: 'api-platform', body });
}
