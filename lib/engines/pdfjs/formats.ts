/** What the pdfjs engine writes from a PDF (lib/engines/pdfjs/): its text, as plain text, HTML, Word and OpenDocument. */
export const PDF_TEXT_OUTPUTS = ['txt', 'html', 'docx', 'odt'] as const;
export type PdfTextOutput = (typeof PDF_TEXT_OUTPUTS)[number];
