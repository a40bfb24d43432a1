/**
 * The `markdown` engine, for machines without pandoc: Markdown (CommonMark and GitHub's tables,
 * task lists, strikethrough) to HTML with marked, and to PDF by Chromium printing that HTML.
 *
 * Security decision. The HTML holds nothing that would fetch or run when Chromium (or whoever opens
 * the HTML) reads it: raw HTML in the Markdown is shown as text (no `<script>`, `<iframe>`, `<img>`,
 * `<link>`), images only as `data:` images (any other becomes its description: a remote image would
 * be a request, a local path a file to read), links only to http(s), mailto, anchors and relative
 * names. A Content-Security-Policy says the same to the browser, and Chromium prints the document
 * offline (browser.ts: every request but the document's own refused).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { Marked, type Tokens } from 'marked';
import type { EngineCall, EngineResult } from '../core/call.js';
import type { InstalledVersion } from '../core/catalog.js';
import { BUNDLED_VERSIONS } from '../core/catalog.js';
import { EngineFailure } from '../core/errors.js';
import { basename, mimeType, normalizeFormat } from '../core/formats.js';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const SAFE_IMAGE = /^data:image\/(png|jpeg|gif|webp|svg\+xml|bmp)[;,]/i;
/** A scheme the page may link to; a name without a scheme (`#top`, `other.md`) is relative. */
const SAFE_LINK = /^(https?:|mailto:|[^:]*$)/i;

const marked = new Marked({
  gfm: true,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return 'block' in token && token.block ? `<pre class="raw-html">${escapeHtml(token.text)}</pre>\n` : escapeHtml(token.text);
    },
    image(token: Tokens.Image): string {
      if (!SAFE_IMAGE.test(token.href)) return `<span class="image">${escapeHtml(token.text)}</span>`;
      return `<img src="${escapeHtml(token.href)}" alt="${escapeHtml(token.text)}">`;
    },
    link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link): string {
      const inner = this.parser.parseInline(token.tokens);
      if (!SAFE_LINK.test(token.href.trim())) return inner;
      return `<a href="${escapeHtml(token.href.trim())}"${token.title ? ` title="${escapeHtml(token.title)}"` : ''}>${inner}</a>`;
    },
  },
});

/** The body of the HTML a Markdown text becomes (see the file's comment for what it keeps). */
export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false });
}

const STYLE =
  'body{font-family:"DejaVu Sans",Arial,Helvetica,sans-serif;line-height:1.5;max-width:46em;margin:0 auto;color:#111}' +
  'pre,code{font-family:"DejaVu Sans Mono",monospace;font-size:90%}pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}' +
  'table{border-collapse:collapse}th,td{border:1px solid #999;padding:.2em .5em}img{max-width:100%}blockquote{color:#555;border-left:3px solid #ccc;margin-left:0;padding-left:1em}';

/** A whole HTML document around the Markdown's HTML. */
export function markdownDocument(markdown: string, title: string): string {
  return (
    '<!doctype html>\n<html><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>\n<body>\n${markdownToHtml(markdown)}</body></html>\n`
  );
}

/** The Chromium the PDF is printed with: the system one the catalog found, else the bundled build. */
const chromiumOf = (installed: InstalledVersion): InstalledVersion =>
  installed.executable ? { version: installed.version, executable: installed.executable, variant: 'system' } : { version: BUNDLED_VERSIONS.chromium, variant: 'bundled' };

export async function markdownConvert(call: EngineCall<{ output_format: string }>): Promise<EngineResult> {
  const [input] = call.inputs;
  const target = normalizeFormat(call.payload.output_format);
  if (target !== 'html' && target !== 'pdf') throw new EngineFailure('INVALID_INPUT', `The markdown engine does not write ${target}.`);
  const bytes = await readFile(input!.path);
  const html = markdownDocument(bytes.toString('utf8'), basename(input!.filename));
  const [name] = call.names(target, 1);
  const out = call.output(name!);
  if (target === 'html') {
    await writeFile(out, html);
  } else {
    const { capture } = await import('../chrome/browser.js');
    await capture({
      source: { html: Buffer.from(html), filename: `${basename(input!.filename) || 'document'}.html` },
      offline: true,
      format: 'pdf',
      options: { page_format: 'A4', margin_top: 20, margin_bottom: 20, margin_left: 20, margin_right: 20 },
      out,
      installed: chromiumOf(call.choice.installed),
      config: call.config,
      signal: call.signal,
      log: call.log,
    });
  }
  return { files: [{ path: out, filename: name!, contentType: mimeType(target) }] };
}
