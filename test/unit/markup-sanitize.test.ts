/**
 * What the markup engines let through to a writer that fetches: pandoc's document tree before a
 * writer that embeds images (docx, odt, epub…), and the HTML the `markdown` engine makes from
 * Markdown (read by Chromium for PDF). Pure functions: the engines' own tests run the tools.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sanitizeAst } from '#lib/engines/markup/pandoc-ast.js';
import { markdownToHtml } from '#lib/engines/markup/markdown.js';

const str = (s: string) => ({ t: 'Str', c: s });
const image = (url: string, alt = 'pic') => ({ t: 'Image', c: [['', [], []], [str(alt)], [url, '']] });
const doc = (blocks: unknown[], meta: Record<string, unknown> = {}) => ({ 'pandoc-api-version': [1, 22, 2, 1], meta, blocks });
const para = (...inlines: unknown[]) => ({ t: 'Para', c: inlines });
const media = path.resolve('/work/call/media');

describe('pandoc document tree before an embedding writer', () => {
  it('keeps images extracted into the call’s media folder and replaces every other image by its description', () => {
    const tree = doc([
      para(
        image(`${media}/rId5.png`),
        image('/etc/passwd', 'passwd'),
        image(`${media}/../../secret.png`, 'up'),
        image('http://127.0.0.1:9/x.png', 'remote'),
        image('file:///etc/hostname', 'file'),
        image('other.png', 'relative'),
      ),
    ]);
    const out = sanitizeAst(tree, { mediaDir: media, embeds: true }) as ReturnType<typeof doc>;
    const inlines = (out.blocks[0] as { c: unknown[] }).c;
    expect(inlines[0]).toEqual(image(`${media}/rId5.png`));
    expect(inlines.slice(1)).toEqual(['passwd', 'up', 'remote', 'file', 'relative'].map((alt) => ({ t: 'Span', c: [['', [], []], [str(alt)]] })));
  });

  it('finds images anywhere in the tree (tables, notes, metadata)', () => {
    const nested = doc([{ t: 'Div', c: [['', [], []], [{ t: 'Plain', c: [{ t: 'Note', c: [para(image('/etc/shadow'))] }] }]] }], {
      title: { t: 'MetaInlines', c: [image('http://169.254.169.254/')] },
    });
    const text = JSON.stringify(sanitizeAst(nested, { mediaDir: media, embeds: true }));
    expect(text).not.toContain('/etc/shadow');
    expect(text).not.toContain('169.254');
  });

  it('drops raw blocks and inlines (an <img> in raw HTML is fetched by the EPUB writer) and metadata the writers read as files', () => {
    const tree = doc([{ t: 'RawBlock', c: ['html', '<img src="http://127.0.0.1:9/raw.png">'] }, para(str('kept'), { t: 'RawInline', c: ['openxml', '<w:r/>'] })], {
      title: { t: 'MetaInlines', c: [str('Title')] },
      'cover-image': { t: 'MetaString', c: '/etc/passwd' },
      css: { t: 'MetaString', c: 'http://127.0.0.1:9/style.css' },
    });
    const out = sanitizeAst(tree, { mediaDir: media, embeds: true }) as ReturnType<typeof doc>;
    expect(JSON.stringify(out)).not.toMatch(/raw\.png|w:r|passwd|style\.css/);
    expect(out.meta).toEqual({ title: { t: 'MetaInlines', c: [str('Title')] } });
    expect(out.blocks).toEqual([para(str('kept'))]);
  });

  it('leaves the tree of a text writer alone (a link to an image is text there, and that writer runs sandboxed)', () => {
    const tree = doc([para(image('http://example.com/a.png')), { t: 'RawBlock', c: ['html', '<b>x</b>'] }]);
    expect(sanitizeAst(tree, { mediaDir: media, embeds: false })).toEqual(tree);
  });

  it('refuses what is not a pandoc document tree', () => {
    expect(() => sanitizeAst({ blocks: 'x' }, { mediaDir: media, embeds: true })).toThrow(/document/);
  });
});

describe('Markdown to HTML without pandoc', () => {
  it('renders CommonMark and GFM (headings, emphasis, lists, tables)', () => {
    const html = markdownToHtml('# Alpha\n\nBravo *charlie*.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n');
    expect(html).toContain('<h1');
    expect(html).toContain('<em>charlie</em>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<td>2</td>');
  });

  it('keeps nothing that would fetch or run: raw HTML is shown as text, images only as data: URIs, links without scripts', () => {
    const html = markdownToHtml(
      [
        '<script>alert(1)</script>',
        '<iframe src="http://127.0.0.1:9/"></iframe>',
        'Inline <img src="http://127.0.0.1:9/i.png"> tag.',
        '![remote](http://127.0.0.1:9/r.png) ![local](/etc/passwd) ![up](../../secret.png)',
        '![inline](data:image/png;base64,iVBORw0KGgo=)',
        '[js](javascript:alert(1)) [ok](https://example.com/) [data](data:text/html,x)',
      ].join('\n\n'),
    );
    expect(html).not.toMatch(/<script|<iframe|<img[^>]*src="(?!data:image\/)/i);
    expect(html).not.toMatch(/href="(javascript|data):/i);
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('<img src="data:image/png;base64,iVBORw0KGgo="');
    expect(html).toContain('href="https://example.com/"');
    expect(html).toMatch(/remote.*local.*up/s);
  });
});
