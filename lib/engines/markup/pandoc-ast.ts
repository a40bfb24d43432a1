/**
 * pandoc's document tree (its JSON) between the reader and a writer that embeds: what could make the
 * writer fetch or read a file is taken out first.
 *
 * Security decision. pandoc's writers for docx, odt, epub and pptx read their own data files, which
 * Debian's pandoc 2.17 cannot read under `--sandbox` (formats.ts): they run without it. Such a writer
 * fetches every image the tree names (a path anywhere on the machine, `file://`, http) and puts it
 * into the output, the EPUB writer also the images of raw HTML, and its cover image and style sheets
 * named in the metadata. The reader ran sandboxed and took the input's own images out into the call's
 * media folder (`--extract-media`), so the tree that reaches such a writer keeps:
 * - images whose path lies in that media folder (and `data:` images, which name no place);
 * - every other image as its description (the alt text), as pandoc itself shows an image it cannot fetch;
 * - no raw block or inline (raw HTML, OpenXML, ODF XML: markup the writer copies or reads);
 * - the metadata that only says what the document is (title, author…), none naming a file.
 * Bubblewrap (or the platform) confines the writer all the same; this is what holds where the platform
 * is the only confinement (the office function in Lambda).
 */
import path from 'node:path';
import { EngineFailure } from '../core/errors.js';

/** Metadata every writer may keep: descriptions of the document, none read as a file by any writer. */
const KEPT_METADATA = new Set(['title', 'subtitle', 'author', 'date', 'lang', 'dir', 'subject', 'description', 'keywords', 'abstract', 'rights', 'publisher', 'creator', 'contributor', 'identifier', 'language']);

type Node = { t?: unknown; c?: unknown } & Record<string, unknown>;

export interface SanitizeOptions {
  /** The folder the reader extracted the input's own images into (absolute). */
  mediaDir: string;
  /** The writer embeds (formats.ts `embeds`): without it the tree is left as it is. */
  embeds: boolean;
}

/** An image source the writer may read: a file pandoc extracted into `mediaDir`, or inline data. */
function allowedImage(url: string, mediaDir: string): boolean {
  if (/^data:image\/(png|jpeg|gif|webp|svg\+xml|bmp|tiff)[;,]/i.test(url)) return true;
  if (!path.isAbsolute(url) || url.includes('\\') || url.split('/').includes('..')) return false;
  const resolved = path.resolve(url);
  return resolved.startsWith(mediaDir + path.sep);
}

function walk(value: unknown, mediaDir: string): unknown {
  if (Array.isArray(value)) {
    return value.filter((v) => !(isNode(v) && (v.t === 'RawBlock' || v.t === 'RawInline'))).map((v) => walk(v, mediaDir));
  }
  if (!isNode(value)) return value;
  if (value.t === 'Image' && Array.isArray(value.c)) {
    const [attr, alt, target] = value.c as [unknown, unknown, unknown];
    const url = Array.isArray(target) && typeof target[0] === 'string' ? target[0] : '';
    if (!allowedImage(url, mediaDir)) return { t: 'Span', c: [['', [], []], walk(alt, mediaDir)] };
    return { t: 'Image', c: [attr, walk(alt, mediaDir), target] };
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, mediaDir)]));
}

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The tree a writer gets (see the file's comment); `tree` is pandoc's JSON, parsed. */
export function sanitizeAst(tree: unknown, options: SanitizeOptions): unknown {
  if (!isNode(tree) || !Array.isArray(tree.blocks) || !isNode(tree.meta)) {
    throw new EngineFailure('CONVERSION_FAILED', 'pandoc did not give a document tree.');
  }
  if (!options.embeds) return tree;
  const mediaDir = path.resolve(options.mediaDir);
  const meta = Object.fromEntries(Object.entries(tree.meta).filter(([key]) => KEPT_METADATA.has(key)));
  return { ...tree, meta: walk(meta, mediaDir), blocks: walk(tree.blocks, mediaDir) };
}
