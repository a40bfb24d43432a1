/**
 * A Word document of `pages` pages made with the `docx` package (not LibreOffice, which reads it):
 * a heading `Page <n> <marker>` and a dozen paragraphs per page, a page break between pages. For the
 * office pool's tests and bench/office.ts.
 */
import { Document, HeadingLevel, Packer, PageBreak, Paragraph } from 'docx';

export async function pagedDocx(pages: number, marker = 'docx'): Promise<Buffer> {
  const children: Paragraph[] = [];
  for (let page = 1; page <= pages; page++) {
    children.push(new Paragraph({ text: `Page ${page} ${marker}`, heading: HeadingLevel.HEADING_1 }));
    for (let i = 1; i <= 12; i++) {
      children.push(new Paragraph(`Paragraph ${i} of page ${page}: the quick brown fox jumps over the lazy dog, line after line, to fill this page with text.`));
    }
    if (page < pages) children.push(new Paragraph({ children: [new PageBreak()] }));
  }
  return Packer.toBuffer(new Document({ sections: [{ children }] }));
}
