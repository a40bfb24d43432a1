/**
 * EPUB 3 files written by hand for the e-book and markup tests (never by the engine under test): the
 * mimetype first and stored, the container, the package, a navigation page and one chapter.
 */
import JSZip from 'jszip';

export async function handmadeEpub(opts: { title: string; chapter: string; identifier?: string }): Promise<Buffer> {
  const { title, chapter } = opts;
  const zip = new JSZip();
  zip.file('mimetype', 'application/epub+zip', { compression: 'STORE' });
  zip.file('META-INF/container.xml', '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>');
  zip.file(
    'OEBPS/book.opf',
    `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:${opts.identifier ?? '4c1b8a52-30e4-4f0e-9d1e-000000000030'}</dc:identifier><dc:title>${title}</dc:title><dc:language>en</dc:language><meta property="dcterms:modified">2026-11-27T00:00:00Z</meta></metadata><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>`,
  );
  const page = (body: string) => `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>${title}</title></head><body>${body}</body></html>`;
  zip.file('OEBPS/nav.xhtml', page(`<nav epub:type="toc"><ol><li><a href="c1.xhtml">${title}</a></li></ol></nav>`));
  zip.file('OEBPS/c1.xhtml', page(chapter));
  return zip.generateAsync({ type: 'nodebuffer', mimeType: 'application/epub+zip' });
}
