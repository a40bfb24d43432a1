/**
 * What LibreOffice's Impress and Draw read and write here, and how: presentations and drawings (Visio,
 * metafiles, SVG) to PDF, to each other's formats, to images one file per slide or page, and PDF pages
 * to SVG. Each format is in these lists because a test converts a file generated for it
 * (test/integration/office-slides.test.ts); formats LibreOffice 7.4 reads but nobody here can write a real
 * file of (Keynote, binary Visio, CorelDRAW, Publisher) stay out.
 */

/** Presentations Impress opens (pptm: its macros never run, see libreoffice.ts). */
export const SLIDES_INPUTS = ['pptx', 'ppt', 'pptm', 'pps', 'ppsx', 'pot', 'potx', 'odp', 'otp', 'fodp'] as const;
/** Drawings Draw opens: ODF drawings, Visio 2013 packages, metafiles and SVG. */
export const DRAWING_INPUTS = ['odg', 'otg', 'fodg', 'vsdx', 'emf', 'wmf', 'svg'] as const;

/** The export filter for each office output, by the application that holds the document. */
const IMPRESS_FILTERS: Record<string, string> = {
  pptx: 'Impress MS PowerPoint 2007 XML',
  ppsx: 'Impress Office Open XML AutoPlay',
  potx: 'Impress MS PowerPoint 2007 XML Template',
  pptm: 'Impress MS PowerPoint 2007 XML VBA',
  ppt: 'MS PowerPoint 97',
  pot: 'MS PowerPoint 97 Vorlage',
  pps: 'MS PowerPoint 97 AutoPlay',
  odp: 'impress8',
  otp: 'impress8_template',
  odg: 'impress8_draw',
};
const DRAW_FILTERS: Record<string, string> = { odg: 'draw8', otg: 'draw8_template' };

export const SLIDES_OUTPUTS = Object.keys(IMPRESS_FILTERS);
export const DRAWING_OUTPUTS = Object.keys(DRAW_FILTERS);
/** Rendered one file per slide or page, from the PDF LibreOffice writes. */
export const PAGE_IMAGE_OUTPUTS = ['png', 'jpg'] as const;

export type OfficeApp = 'impress' | 'draw';

/** The application that opens a format (PDF: Draw's PDF import), if one of these does. */
export function appOf(format: string): OfficeApp | undefined {
  if ((SLIDES_INPUTS as readonly string[]).includes(format)) return 'impress';
  if ((DRAWING_INPUTS as readonly string[]).includes(format) || format === 'pdf') return 'draw';
  return undefined;
}

/** The filter that writes `output` from a document of `app`, for the office formats (not pdf, images, svg). */
export function officeFilter(app: OfficeApp, output: string): string | undefined {
  return (app === 'impress' ? IMPRESS_FILTERS : DRAW_FILTERS)[output];
}

/** What the PDF export honours of a task's arguments. */
export interface SlidesPdfOptions {
  pages?: string | null;
  pdf_a?: boolean | null;
  hidden_slides?: boolean | null;
}

/** The PDF export filter and its FilterData for a document of `app` (undefined: LibreOffice's defaults). */
export function pdfExport(app: OfficeApp, options: SlidesPdfOptions): { filter: string; options: Record<string, { type: string; value: unknown }> } | undefined {
  const data: Record<string, { type: string; value: unknown }> = {};
  const pages = typeof options.pages === 'string' ? options.pages.replace(/\s+/g, '') : '';
  if (pages) data.PageRange = { type: 'string', value: pages };
  // PDF/A-2b: what LibreOffice calls version 2 (1 is PDF/A-1b, 3 is PDF/A-3b).
  if (options.pdf_a) data.SelectPdfVersion = { type: 'long', value: '2' };
  if (app === 'impress' && options.hidden_slides) data.ExportHiddenSlides = { type: 'boolean', value: 'true' };
  if (Object.keys(data).length === 0) return undefined;
  return { filter: app === 'impress' ? 'impress_pdf_Export' : 'draw_pdf_Export', options: data };
}

const PDF_OPTIONS = ['pages', 'pdf_a'];
const IMAGE_OPTIONS = ['pages', 'density', 'width', 'height', 'fit', 'quality'];

/** convert's capabilities on Impress (feature `impress`) and Draw (`draw`), for convert/operation.ts. */
export const SLIDES_CAPABILITIES = [
  { inputs: SLIDES_INPUTS, outputs: ['pdf'], options: [...PDF_OPTIONS, 'hidden_slides'], feature: 'impress', credits: 2 },
  { inputs: SLIDES_INPUTS, outputs: SLIDES_OUTPUTS, options: [], feature: 'impress', credits: 2 },
  { inputs: SLIDES_INPUTS, outputs: [...PAGE_IMAGE_OUTPUTS, 'svg'], options: [...IMAGE_OPTIONS, 'hidden_slides'], feature: 'impress', credits: 2 },
  { inputs: DRAWING_INPUTS, outputs: ['pdf'], options: PDF_OPTIONS, feature: 'draw', credits: 2 },
  { inputs: DRAWING_INPUTS, outputs: DRAWING_OUTPUTS, options: [], feature: 'draw', credits: 2 },
  { inputs: DRAWING_INPUTS, outputs: [...PAGE_IMAGE_OUTPUTS, 'svg'], options: IMAGE_OPTIONS, feature: 'draw', credits: 2 },
  { inputs: ['pdf'], outputs: ['svg'], options: ['pages'], feature: 'draw', credits: 2 },
] as const;
