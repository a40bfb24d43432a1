/** Content types for exported objects: the stored type when it says something, else the file extension's. */

const BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  json: 'application/json',
  xml: 'application/xml',
  md: 'text/markdown',
  pdf: 'application/pdf',
  eps: 'application/postscript',
  ps: 'application/postscript',
  ai: 'application/postscript',
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed',
  rar: 'application/vnd.rar',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  bmp: 'image/bmp',
  ico: 'image/vnd.microsoft.icon',
  heic: 'image/heic',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  opus: 'audio/opus',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  vtt: 'text/vtt',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  rtf: 'application/rtf',
  epub: 'application/epub+zip',
};

const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream']);
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** Whether a type says something (S3 answers `binary/octet-stream` for an object stored untyped). */
export const isSpecificType = (type: string | undefined): type is string => !!type && !GENERIC.has(type.toLowerCase().split(';')[0]!.trim());

/** The type a file name's extension gives, if it gives one. */
export function typeOfExtension(filename: string): string | undefined {
  const ext = filename.slice(filename.lastIndexOf('.') + 1).toLowerCase();
  // Own keys only: `x.constructor` names no type.
  return filename.includes('.') && Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext] : undefined;
}

export function contentTypeOf(filename: string, stored?: string): string {
  if (isSpecificType(stored)) return stored;
  return typeOfExtension(filename) ?? DEFAULT_CONTENT_TYPE;
}
