/**
 * The settings of a machine that never ran apt-get: every system tool path points nowhere, so the
 * engines are the ones npm installed (FFmpeg and ffprobe builds, Ghostscript and qpdf as WebAssembly,
 * metadata without perl, OCR on tesseract.js), and there is no LibreOffice.
 */
export const NO_SYSTEM_TOOLS = {
  FFMPEG_PATH: '/nonexistent/ffmpeg',
  FFPROBE_PATH: '/nonexistent/ffprobe',
  GHOSTSCRIPT_PATH: '/nonexistent/gs',
  QPDF_PATH: '/nonexistent/qpdf',
  PERL_PATH: '/nonexistent/perl',
  SOFFICE_PATH: '/nonexistent/soffice',
  PANDOC_PATH: '/nonexistent/pandoc',
  EBOOK_CONVERT_PATH: '/nonexistent/ebook-convert',
  TESSERACT_PATH: '/nonexistent/tesseract',
};
