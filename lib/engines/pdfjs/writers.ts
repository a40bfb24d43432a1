/**
 * The pdfjs engine's text outputs from the laid-out pages (layout.ts): plain text, HTML and Word.
 *
 * - txt: UTF-8, the blocks of a page in reading order, each on one line, one blank line between them;
 *   a form feed (U+000C) between pages, as pdftotext separates them.
 * - html: one valid HTML document, one `<section class="page">` per PDF page holding its headings
 *   (`h1`–`h3`) and paragraphs in flow, as wide as the page; no script, no link, no image, nothing
 *   fetched (a Content-Security-Policy of `default-src 'none'` says so to browsers as well).
 * - docx: one Word section per PDF page, of the page's size, so that each page starts a new page; the
 *   headings in Word's Heading 1–3 styles (what readers and tables of contents recognise).
 */
import { escapeMarkup } from '../../kernel/text.js';
import type { TextPage } from './layout.js';

export function toText(pages: TextPage[]): string {
  return pages.map((page) => page.blocks.map((b) => b.text).join('\n\n') + '\n').join('\f');
}

export function toHtml(pages: TextPage[], title: string): string {
  const sections = pages.map((page) => {
    const blocks = page.blocks.map((b) => (b.level ? `<h${b.level}>${escapeMarkup(b.text)}</h${b.level}>` : `<p>${escapeMarkup(b.text)}</p>`));
    // Widths in points, as the PDF gives them; the heights are minimums (text reflows in the browser's fonts).
    return `<section class="page" id="page-${page.n}" style="max-width:${page.width}pt;min-height:${page.height}pt">\n${blocks.join('\n')}\n</section>`;
  });
  return [
    '<!DOCTYPE html>',
    '<html>',
    '<head>',
    '<meta charset="utf-8" />',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'" />`,
    `<title>${escapeMarkup(title)}</title>`,
    '<style>body{background:#eee;margin:0;padding:1em}.page{background:#fff;box-sizing:border-box;margin:0 auto 1em;padding:48pt;font-family:serif}</style>',
    '</head>',
    '<body>',
    ...sections,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Points to twentieths of a point (Word's page measures). */
const twips = (points: number) => Math.round(points * 20);

export async function toDocx(pages: TextPage[], title: string): Promise<Buffer> {
  const { Document, HeadingLevel, Packer, Paragraph } = await import('docx');
  const HEADINGS = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3] as const;
  const doc = new Document({
    title,
    sections: pages.map((page) => ({
      properties: { page: { size: { width: twips(page.width), height: twips(page.height) } } },
      // Word wants a paragraph in every section: a page without text keeps an empty one.
      children: (page.blocks.length ? page.blocks : [{ level: 0, text: '' }]).map((b) =>
        b.level ? new Paragraph({ text: b.text, heading: HEADINGS[b.level - 1] }) : new Paragraph({ text: b.text }),
      ),
    })),
  });
  return Packer.toBuffer(doc);
}
