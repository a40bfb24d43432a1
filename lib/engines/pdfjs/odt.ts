/**
 * The pdfjs engine's OpenDocument text: a package of our own writing (ODF 1.3), small because the
 * document is: headings (`text:h` with their outline level, in Heading 1–3) and paragraphs (Text body)
 * in flow, the first block of each PDF page after the first breaking the page. The page layout is the
 * first PDF page's size (ODF gives a size per master page; one is enough for documents of one size).
 * The `mimetype` entry comes first and uncompressed, as ODF readers sniff it.
 */
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { escapeMarkup } from '../../kernel/text.js';
import type { TextPage } from './layout.js';

const MIME = 'application/vnd.oasis.opendocument.text';
const NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:dc="http://purl.org/dc/elements/1.1/"',
].join(' ');
const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const HEADING_SIZES = ['20pt', '16pt', '14pt'];

const headingStyle = (level: number) => `Heading_20_${level}`;

function contentXml(pages: TextPage[]): string {
  // The same styles, breaking the page before them: one per style a page can start with.
  const breaking = ['Text_20_body', ...HEADING_SIZES.map((_, i) => headingStyle(i + 1))]
    .map((parent) => `<style:style style:name="Break_${parent}" style:family="paragraph" style:parent-style-name="${parent}"><style:paragraph-properties fo:break-before="page"/></style:style>`)
    .join('');
  const body = pages.flatMap((page, p) =>
    page.blocks.map((b, i) => {
      const style = b.level ? headingStyle(b.level) : 'Text_20_body';
      const name = p > 0 && i === 0 ? `Break_${style}` : style;
      const text = escapeMarkup(b.text);
      return b.level ? `<text:h text:style-name="${name}" text:outline-level="${b.level}">${text}</text:h>` : `<text:p text:style-name="${name}">${text}</text:p>`;
    }),
  );
  return `${XML}<office:document-content ${NS} office:version="1.3"><office:automatic-styles>${breaking}</office:automatic-styles><office:body><office:text>\n${body.join('\n')}\n</office:text></office:body></office:document-content>\n`;
}

function stylesXml(first: TextPage | undefined): string {
  const [width, height] = first ? [first.width, first.height] : [595, 842];
  const headings = HEADING_SIZES.map(
    (size, i) =>
      `<style:style style:name="${headingStyle(i + 1)}" style:display-name="Heading ${i + 1}" style:family="paragraph" style:parent-style-name="Heading" style:next-style-name="Text_20_body" style:default-outline-level="${i + 1}" style:class="text"><style:text-properties fo:font-size="${size}" fo:font-weight="bold"/></style:style>`,
  ).join('');
  return (
    `${XML}<office:document-styles ${NS} office:version="1.3"><office:styles>` +
    '<style:default-style style:family="paragraph"><style:text-properties fo:font-size="12pt"/></style:default-style>' +
    '<style:style style:name="Standard" style:family="paragraph" style:class="text"/>' +
    '<style:style style:name="Text_20_body" style:display-name="Text body" style:family="paragraph" style:parent-style-name="Standard" style:class="text"><style:paragraph-properties fo:margin-top="0cm" fo:margin-bottom="0.25cm"/></style:style>' +
    '<style:style style:name="Heading" style:family="paragraph" style:parent-style-name="Standard" style:next-style-name="Text_20_body" style:class="text"><style:paragraph-properties fo:margin-top="0.42cm" fo:margin-bottom="0.21cm" fo:keep-with-next="always"/></style:style>' +
    headings +
    '</office:styles><office:automatic-styles>' +
    `<style:page-layout style:name="Page"><style:page-layout-properties fo:page-width="${width}pt" fo:page-height="${height}pt" fo:margin-top="2cm" fo:margin-bottom="2cm" fo:margin-left="2cm" fo:margin-right="2cm"/></style:page-layout>` +
    '</office:automatic-styles><office:master-styles><style:master-page style:name="Standard" style:page-layout-name="Page"/></office:master-styles></office:document-styles>\n'
  );
}

const metaXml = (title: string) =>
  `${XML}<office:document-meta ${NS} office:version="1.3"><office:meta><dc:title>${escapeMarkup(title)}</dc:title></office:meta></office:document-meta>\n`;

const manifestXml = () =>
  `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">` +
  `<manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="${MIME}"/>` +
  ['content.xml', 'styles.xml', 'meta.xml'].map((f) => `<manifest:file-entry manifest:full-path="${f}" manifest:media-type="text/xml"/>`).join('') +
  '</manifest:manifest>\n';

/** Writes the pages as an OpenDocument text at `out`. */
export async function writeOdt(pages: TextPage[], title: string, out: string): Promise<void> {
  const { ZipArchive } = await import('archiver');
  const zip = new ZipArchive({ zlib: { level: 6 } });
  const file = createWriteStream(out);
  zip.pipe(file);
  zip.append(Buffer.from(MIME), { name: 'mimetype', store: true });
  zip.append(Buffer.from(manifestXml()), { name: 'META-INF/manifest.xml' });
  zip.append(Buffer.from(contentXml(pages)), { name: 'content.xml' });
  zip.append(Buffer.from(stylesXml(pages[0])), { name: 'styles.xml' });
  zip.append(Buffer.from(metaXml(title)), { name: 'meta.xml' });
  await Promise.all([zip.finalize(), finished(file)]);
}
