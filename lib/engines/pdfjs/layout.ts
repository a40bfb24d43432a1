/**
 * From the runs of text pdf.js found on each page (child.ts) to what a text document holds: lines,
 * paragraphs and headings, page by page. Pure: the writers (writers.ts, odt.ts) and the unit tests
 * take its result.
 *
 * - Lines: runs in the order pdf.js gives them (the content's order, which is the reading order of
 *   nearly every PDF written from a text document, columns included); a new line where the baseline
 *   moves by more than half the font size or pdf.js marks a line's end. Runs apart by more than a fifth
 *   of the font size are joined with a space.
 * - Paragraphs: a new one where the gap between baselines is clearly larger than the page's usual line
 *   spacing (or more than 1.6 font sizes), where the text goes up the page (a new column), where the
 *   font size changes, or after a line that ends a sentence well short of the text's right edge. Lines
 *   of a paragraph are joined with a space (after a hyphen, without).
 * - Headings: paragraphs of at most three lines and 200 characters set in a font at least 15 % larger
 *   than the body's (the size most characters have); levels 1 to 3 by size, largest first.
 */

/** One run of text: [text, x, y (baseline, from the top), width, font size, ends a line]. */
export type Run = [string, number, number, number, number, 0 | 1];

export interface PageRuns {
  n: number;
  width: number;
  height: number;
  runs: Run[];
}

export interface Block {
  /** 0: a paragraph; 1 to 3: a heading of that level. */
  level: number;
  text: string;
  size: number;
}

export interface TextPage {
  n: number;
  width: number;
  height: number;
  blocks: Block[];
}

interface Line {
  text: string;
  x: number;
  right: number;
  y: number;
  size: number;
}

const HEADING_RATIO = 1.15;
const MAX_HEADING_LINES = 3;
const MAX_HEADING_CHARS = 200;

/** Characters XML 1.0 cannot hold (controls other than tab, line feed, carriage return; lone surrogates; U+FFFE/F). */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text as every output can hold it: no control characters, white space as single spaces. */
export const clean = (text: string): string => text.replace(NOT_XML, '').replace(/\s+/g, ' ');

function linesOf(runs: Run[]): Line[] {
  const lines: Line[] = [];
  let line: (Line & { chars: Map<number, number>; ended: boolean }) | undefined;
  for (const [raw, x, y, width, size, eol] of runs) {
    const text = clean(raw);
    const sameLine = line !== undefined && !line.ended && Math.abs(line.y - y) <= 0.5 * Math.max(size, line.size);
    if (!sameLine) {
      // White space alone starts no line (pdf.js marks the end of the last one with an empty run).
      if (!text.trim()) {
        if (line && eol) line.ended = true;
        continue;
      }
      line = { text: '', x, right: x, y, size, chars: new Map(), ended: false };
      lines.push(line);
    }
    const gap = x - line!.right;
    if (line!.text && !line!.text.endsWith(' ') && !text.startsWith(' ') && gap > 0.2 * size) line!.text += ' ';
    line!.text += text;
    line!.x = Math.min(line!.x, x);
    line!.right = Math.max(line!.right, x + width);
    line!.chars.set(size, (line!.chars.get(size) ?? 0) + text.length);
    // The line's size: the one most of its characters have.
    line!.size = [...line!.chars].sort((a, b) => b[1] - a[1])[0]![0];
    if (eol) line!.ended = true;
  }
  return lines.map(({ text, x, right, y, size }) => ({ text: text.trim(), x, right, y, size })).filter((l) => l.text);
}

const similar = (a: number, b: number) => Math.abs(a - b) <= 0.15 * Math.max(a, b);

/** The page's usual distance between baselines, in font sizes (the median over lines of one size). */
function usualSpacing(lines: Line[]): number | undefined {
  const gaps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const [a, b] = [lines[i - 1]!, lines[i]!];
    if (b.y > a.y && similar(a.size, b.size)) gaps.push((b.y - a.y) / Math.max(a.size, 1));
  }
  if (gaps.length < 3) return undefined;
  return gaps.sort((a, b) => a - b)[Math.floor(gaps.length / 2)];
}

const ENDS_SENTENCE = /[.!?:;]["'’”)\]]?$/;

/** The paragraphs of one page, each a list of lines. */
function paragraphsOf(lines: Line[]): Line[][] {
  const usual = usualSpacing(lines);
  const threshold = Math.min(usual ? usual * 1.25 : 1.5, 1.6);
  const left = Math.min(...lines.map((l) => l.x));
  const right = Math.max(...lines.map((l) => l.right));
  const paragraphs: Line[][] = [];
  let current: Line[] = [];
  for (const line of lines) {
    const last = current[current.length - 1];
    const breaks =
      !last ||
      line.y <= last.y ||
      !similar(line.size, last.size) ||
      (line.y - last.y) / Math.max(last.size, 1) > threshold ||
      (ENDS_SENTENCE.test(last.text) && last.right < right - 0.15 * (right - left));
    if (breaks && current.length) {
      paragraphs.push(current);
      current = [];
    }
    current.push(line);
  }
  if (current.length) paragraphs.push(current);
  return paragraphs;
}

const hyphenated = (text: string) => text.endsWith('-') && /\p{L}/u.test(text.charAt(text.length - 2));
const joinLines = (lines: Line[]) => lines.reduce((text, line) => (!text ? line.text : hyphenated(text) ? text + line.text : `${text} ${line.text}`), '');

/** The size most characters of the document are set in. */
function bodySize(paragraphs: Line[][]): number {
  const chars = new Map<number, number>();
  for (const line of paragraphs.flat()) chars.set(line.size, (chars.get(line.size) ?? 0) + line.text.length);
  return [...chars].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
}

/** The pages' text as paragraphs and headings. */
export function layout(pages: PageRuns[]): TextPage[] {
  const split = pages.map((page) => ({ page, paragraphs: paragraphsOf(linesOf(page.runs)) }));
  const body = bodySize(split.flatMap((s) => s.paragraphs));
  const isHeading = (lines: Line[], text: string) =>
    body > 0 && lines[0]!.size >= body * HEADING_RATIO && lines.length <= MAX_HEADING_LINES && text.length <= MAX_HEADING_CHARS;
  const headingSizes = new Set<number>();
  for (const { paragraphs } of split) for (const p of paragraphs) if (isHeading(p, joinLines(p))) headingSizes.add(Math.round(p[0]!.size * 2) / 2);
  const ranked = [...headingSizes].sort((a, b) => b - a);
  return split.map(({ page, paragraphs }) => ({
    n: page.n,
    width: page.width,
    height: page.height,
    blocks: paragraphs.map((lines) => {
      const text = joinLines(lines);
      const size = lines[0]!.size;
      const level = isHeading(lines, text) ? Math.min(3, ranked.indexOf(Math.round(size * 2) / 2) + 1) : 0;
      return { level, text, size };
    }),
  }));
}
