/** How many image XObjects a PDF holds (pdf-lib): a linked picture that got fetched or read ends up as one; a vector drawing has none. */
import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';

export async function pdfImageCount(bytes: Buffer): Promise<number> {
  const doc = await PDFDocument.load(bytes);
  let images = 0;
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image')) images++;
  }
  return images;
}
