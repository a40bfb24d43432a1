/**
 * File names and folders that come from input (form uploads, Content-Disposition, URL paths, `filename`
 * arguments, object names under a storage prefix, archive entries) made safe to use as parts of object
 * keys, file-system paths and `result.files` entries. One rule, used wherever a name is derived from input:
 *
 * - `/` and `\` separate segments, also percent-encoded (`%2F`, `%5C`) and as the characters that read
 *   as them and that Unicode normalization or Windows' best-fit code pages turn into them (fullwidth
 *   `／` `＼`, `∕` division slash, `⁄` fraction slash, `⧸`, `∖`, `⧵`, `⧹`, `﹨`); a file name is the last segment;
 * - segments that are empty or only dots and spaces (`.`, `..`, `. .`, also written `%2e`, and as the
 *   compatibility forms of a dot: fullwidth `．`, `․`, `‥`, `…`) are dropped, so nothing can name a
 *   parent folder (also where trailing dots and spaces are trimmed, as on Windows) and nothing starts with `/`;
 * - control characters (C0, DEL, C1), NUL, line and paragraph separators and bidirectional-text
 *   controls are removed;
 * - a segment is cut to 255 UTF-8 bytes (a file name keeps its extension), a folder to 1024 bytes;
 * - a file name with nothing left becomes `file`.
 */

export const FALLBACK_FILENAME = 'file';
const MAX_SEGMENT_BYTES = 255;
const MAX_DIR_BYTES = 1024;

/** C0 and C1 controls, DEL, line/paragraph separators, bidi marks, embeddings, overrides and isolates. */
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const ENCODED_SEPARATOR = /%(?:2f|5c)/gi;
/** `/`, `\` and the characters that read as them or become them in a normalization or a code page. */
const SEPARATOR = /[/\\\u2044\u2215\u2216\u29f5\u29f8\u29f9\ufe68\uff0f\uff3c]/;

/**
 * Whether a segment names the current or a parent folder (or is nothing at all): only dots and
 * spaces once percent-encoded dots are decoded and compatibility forms (`．`, `‥`, `％２ｅ`) normalized.
 */
function isDotSegment(segment: string): boolean {
  return /^[.\s]*$/.test(segment.normalize('NFKC').replace(/%2e/gi, '.').replace(INVISIBLE, ''));
}
/** Characters that show as nothing (soft hyphen, zero-width spaces and joiners, word joiner, BOM): `.\u200b.` reads as `..`. */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff]|\u034f/g;

/**
 * Why an object name or prefix for the user's own storage (export `key`, `blob`, `file` and their
 * `_prefix`) is refused, if it is: a `.` or `..` segment (also `%2e`), which URL handling resolves so
 * that the object lands beside its bucket or container instead of in it, or a control character.
 * The last segment of a prefix is the start of a name (`logs/.` matches `logs/.env`) and is not a segment.
 */
export function objectNameProblem(name: string, isPrefix = false): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters';
  const segments = name.split('/');
  if (isPrefix) segments.pop();
  if (segments.some((s) => /^(?:\.|%2e){1,2}$/i.test(s))) return 'must not contain "." or ".." segments';
  return undefined;
}

const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

/** The longest prefix of `s` of at most `max` UTF-8 bytes, cut between code points. */
function cutBytes(s: string, max: number): string {
  if (byteLength(s) <= max) return s;
  let out = '';
  let used = 0;
  for (const ch of s) {
    const size = byteLength(ch);
    if (used + size > max) break;
    out += ch;
    used += size;
  }
  return out;
}

/** A name cut to the segment limit, its extension (up to 16 bytes) kept. */
function cutName(name: string, max = MAX_SEGMENT_BYTES): string {
  if (byteLength(name) <= max) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && byteLength(name.slice(dot)) <= 16 ? name.slice(dot) : '';
  return cutBytes(name.slice(0, name.length - ext.length), max - byteLength(ext)) + ext;
}

/** The safe segments of a path from input, in order. */
function segmentsOf(input: string): string[] {
  return input
    .replace(UNSAFE_CHARACTERS, '')
    .replace(ENCODED_SEPARATOR, '/')
    .split(SEPARATOR)
    .filter((segment) => !isDotSegment(segment))
    .map((segment) => cutName(segment));
}

/** A file name from input: its last safe segment, or `fallback` when nothing is left. */
export function safeFilename(input: string, fallback = FALLBACK_FILENAME): string {
  const last = segmentsOf(input).pop();
  return last ?? fallback;
}

/** A relative folder from input (`a/b`), or undefined when nothing is left. */
export function safeDir(input: string | undefined): string | undefined {
  if (input === undefined) return undefined;
  const parts: string[] = [];
  let used = 0;
  for (const segment of segmentsOf(input)) {
    const size = byteLength(segment) + (parts.length ? 1 : 0);
    if (used + size > MAX_DIR_BYTES) break;
    parts.push(segment);
    used += size;
  }
  return parts.length ? parts.join('/') : undefined;
}

/** Whether a name is already a safe file name (what `safeFilename` leaves unchanged). */
export const isSafeFilename = (name: string) => name !== '' && safeFilename(name, '') === name;

/** Whether a folder is already safe (what `safeDir` leaves unchanged). */
export const isSafeDir = (dir: string) => safeDir(dir) === dir;

/**
 * Output names are unique within a task: a name already in `used` (in the same folder) gets a
 * number before its extension. Adds the name it returns to `used`.
 */
export function uniqueName(used: Set<string>, filename: string, dir?: string): string {
  let name = filename;
  for (let n = 1; used.has(`${dir ?? ''}/${name}`); n++) name = numberedName(filename, n);
  used.add(`${dir ?? ''}/${name}`);
  return name;
}

/** `name` with `-n` before its extension, still within the length limit. */
export function numberedName(name: string, n: number): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const suffix = `-${n}${ext}`;
  return cutBytes(stem, MAX_SEGMENT_BYTES - byteLength(suffix)) + suffix;
}

/**
 * A header value with RFC 2047 encoded-words decoded (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`): how S3 answers
 * user metadata that is not US-ASCII, such as an upload form's file name. Other charsets than UTF-8 and
 * ASCII are read as Latin-1; malformed words stay as they are. The result is input: make it safe after.
 */
export function decodeMimeWords(value: string): string {
  const word = /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g;
  // Whitespace between two encoded-words is not part of the text.
  return value.replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?)/g, '$1').replace(word, (whole, charset: string, how: string, text: string) => {
    const bytes = how.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64')
      : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
    return /^(utf-?8|us-ascii)$/i.test(charset) ? bytes.toString('utf8') : bytes.toString('latin1');
  });
}
