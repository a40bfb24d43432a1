/**
 * The pdfjs engine's layout (lib/engines/pdfjs/layout.ts) on runs of text as pdf.js reports them, and
 * its plain-text and HTML writers: lines from runs, paragraphs from gaps and short sentence ends,
 * headings from font sizes, text cleaned of what XML cannot hold.
 */
import { describe, expect, it } from 'vitest';
import { clean, layout, type PageRuns, type Run } from '#lib/engines/pdfjs/layout.js';
import { toHtml, toText } from '#lib/engines/pdfjs/writers.js';

/** Lines of body text at 12 pt from `top`, `spacing` apart, each one run; a line ending in `|` is short (half width). */
function body(lines: string[], top: number, spacing = 14.4): Run[] {
  return lines.map((text, i) => [text.replace(/\|$/, ''), 72, top + i * spacing, text.endsWith('|') ? 200 : 450, 12, 1]);
}
const page = (runs: Run[], n = 1): PageRuns => ({ n, width: 595, height: 842, runs });
const texts = (pages: PageRuns[]) => layout(pages).map((p) => p.blocks.map((b) => [b.level, b.text]));

describe('layout', () => {
  it('joins runs on one baseline into a line, with a space only where there is a gap', () => {
    const runs: Run[] = [
      ['Hel', 72, 100, 18, 12, 0],
      ['lo', 90, 100, 10, 12, 0],
      ['world', 110, 100.2, 30, 12, 1],
    ];
    expect(texts([page(runs)])).toEqual([[[0, 'Hello world']]]);
  });

  it('starts a paragraph where the gap between lines is larger than the usual spacing', () => {
    const runs = [...body(['one a', 'one b', 'one c'], 100), ...body(['two a', 'two b'], 100 + 4 * 14.4)];
    expect(texts([page(runs)])).toEqual([[[0, 'one a one b one c'], [0, 'two a two b']]]);
  });

  it('starts a paragraph after a short line that ends a sentence, even without a gap', () => {
    const runs = body(['The first paragraph runs over', 'two lines and ends here.|', 'The next one follows at once', 'and ends too.|'], 100);
    expect(texts([page(runs)])).toEqual([[[0, 'The first paragraph runs over two lines and ends here.'], [0, 'The next one follows at once and ends too.']]]);
  });

  it('tells headings by a larger font, levels by size across pages', () => {
    const first = page([['Title', 72, 60, 100, 24, 1], ['Part one', 72, 100, 80, 16, 1], ...body(['text of part one', 'more text.|'], 130)]);
    const second = page([['Part two', 72, 60, 80, 16, 1], ...body(['text of part two', 'and more body text here.|'], 90)], 2);
    expect(texts([first, second])).toEqual([
      [[1, 'Title'], [2, 'Part one'], [0, 'text of part one more text.']],
      [[2, 'Part two'], [0, 'text of part two and more body text here.']],
    ]);
  });

  it('does not call a long paragraph in a larger font a heading', () => {
    const long = Array.from({ length: 5 }, (_, i) => `a long line in a large font number ${i}`);
    const runs = [...long.map((t, i): Run => [t, 72, 100 + i * 20, 450, 16, 1]), ...body(['body', 'body', 'body', 'body', 'body.|'], 300)];
    expect(layout([page(runs)])[0]!.blocks.map((b) => b.level)).toEqual([0, 0]);
  });

  it('starts a paragraph where the text goes up the page (the next column)', () => {
    const runs: Run[] = [['left column', 72, 100, 200, 12, 1], ['continues', 72, 114.4, 200, 12, 1], ['right column', 320, 100, 200, 12, 1]];
    expect(texts([page(runs)])).toEqual([[[0, 'left column continues'], [0, 'right column']]]);
  });

  it('joins a hyphenated line end without a space', () => {
    expect(texts([page(body(['a self-', 'contained word.|'], 100))])).toEqual([[[0, 'a self-contained word.']]]);
  });

  it('keeps a page without text as a page without blocks', () => {
    expect(layout([page([]), page([[' ', 72, 100, 3, 12, 1]], 2)]).map((p) => [p.n, p.blocks.length])).toEqual([[1, 0], [2, 0]]);
  });

  it('cleans text of what XML 1.0 cannot hold and collapses white space', () => {
    expect(clean('a\u0000b\u0007\tc\u000b \ud800d\ufffe')).toBe('ab c d');
    expect(clean('emoji \ud83d\ude00 kept')).toBe('emoji \ud83d\ude00 kept');
  });
});

describe('writers', () => {
  const pages = layout([page([['Title', 72, 60, 100, 24, 1], ...body(['a <b> & "c"', 'end.|'], 100), ...body(['next.|'], 160)]), page(body(['second page.|'], 100), 2)]);

  it('txt: blocks one per line, a blank line between them, a form feed between pages', () => {
    expect(toText(pages)).toBe('Title\n\na <b> & "c" end.\n\nnext.\n\fsecond page.\n');
  });

  it('html: one section per page, text escaped, a policy that fetches nothing', () => {
    const html = toHtml(pages, 'x</title><script>');
    expect(html).toContain('<title>x&#60;/title&#62;&#60;script&#62;</title>');
    expect(html).toContain('<p>a &#60;b&#62; &#38; &#34;c&#34; end.</p>');
    expect(html.match(/<section class="page"/g)).toHaveLength(2);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(html).not.toContain('<script');
  });
});
