/**
 * Server-rendered HTML for the sign-in, consent and account pages: no script, no external asset,
 * every value escaped. Pages go out with a Content-Security-Policy that allows nothing but their own
 * inline style block (by hash) and forms, may not be framed (clickjacking), are never cached and send
 * no Referer (the consent page's URL carries the client's `state`).
 */
import { createHash } from 'node:crypto';
import { httpStatusOf, type ApiError } from '../kernel/errors.js';
import type { HttpResponse } from '../http/types.js';

/** Markup that is already safe: made only by `html` or `trusted`. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

type Part = Html | string | number | undefined | null | false | readonly Part[];

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** A template whose values are escaped (arrays joined, `Html` kept, empty values left out). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => (out += render(value) + strings[i + 1]!));
  return new Html(out);
}

const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:34rem;margin:3rem auto;background:#fff;border-radius:8px;padding:2rem;box-shadow:0 1px 4px rgba(0,0,0,.12)}
main.wide{max-width:52rem}
h1{font-size:1.4rem;margin:0 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #b9bfcc;border-radius:4px}
ul.scopes{list-style:none;padding:0}ul.scopes li{margin:.4rem 0}ul.scopes label{display:inline;font-weight:400;margin:0}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{font:inherit;padding:.5rem 1.25rem;border-radius:4px;border:1px solid #2f5bd3;background:#2f5bd3;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#2f5bd3}
.error{background:#fdecec;border:1px solid #e3a1a1;padding:.5rem .75rem;border-radius:4px}
.muted{color:#5b6475;font-size:.9rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e3e6ec;vertical-align:top}
code{font-size:.9em}
`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'`,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** A whole page. */
export function page(opts: { title: string; body: Html; status?: number; wide?: boolean; headers?: Record<string, string> }): HttpResponse {
  const doc = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${opts.title}</title><style>${new Html(STYLE)}</style></head>
<body><main${opts.wide ? new Html(' class="wide"') : ''}>${opts.body}</main></body></html>`;
  return { status: opts.status ?? 200, headers: { ...PAGE_HEADERS, ...opts.headers }, body: doc.value };
}

/** A page that only says what went wrong (never redirects anywhere). */
/** `Retry-After` of a throttled sign-in (429), so that scripts wait as long as the page says. */
export const retryAfterHeader = (seconds?: number): Record<string, string> => (seconds ? { 'retry-after': String(seconds) } : {});

export const errorPage = (status: number, title: string, message: string): HttpResponse =>
  page({ status, title, body: html`<h1>${title}</h1><p class="error">${message}</p>` });

/** A 303 to a page of this service after a form post (post/redirect/get). */
export const seeOther = (location: string, headers: Record<string, string> = {}): HttpResponse => ({
  status: 303,
  headers: { location, 'cache-control': 'no-store', ...headers },
});

/** Errors of the page routes, as a page: a client mistake says what it was; anything else is generic. */
export function renderPageError(err: ApiError): HttpResponse {
  if (!err.expose) return errorPage(500, 'Something went wrong', 'The server could not handle the request. Try again in a moment.');
  const status = err.status ?? httpStatusOf[err.reason];
  return { ...errorPage(status, 'This request cannot be handled', err.message), headers: { ...PAGE_HEADERS, ...err.headers } };
}
