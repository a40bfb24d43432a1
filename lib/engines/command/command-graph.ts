/**
 * FFmpeg filtergraphs read as FFmpeg reads them (libavfilter's graph parser, then each filter's option
 * parser), so that what command-arguments.ts checks is what FFmpeg will run:
 *
 * - graph level: `[label]…name=arguments[label]…` chains joined by `,` and `;`; the name and the
 *   arguments are each one token where `\x` is `x` and `'…'` is literal (FFmpeg's `av_get_token`);
 * - option level: the arguments are `value:value:key=value…`; a value without a key sets the filter's
 *   next option in its declared order, a key is `[A-Za-z0-9_./-]*` before `=`, and each value is a token
 *   again (the second unescaping).
 *
 * The result holds the unescaped names, keys and values. What FFmpeg would read in more than one way,
 * or that this parser does not model, is refused rather than guessed: an unclosed quote, a trailing
 * backslash, `sws_flags=` before the graph, a value without a key after a keyed one (FFmpeg would bind
 * it to the filter's first option again).
 */

/** A filtergraph FFmpeg could not read, or could read in a way not checked here. */
export class GraphError extends Error {
  override readonly name = 'GraphError';
}

export interface ParsedFilter {
  /** The filter's name as FFmpeg looks it up. */
  name: string;
  /** Its arguments after the graph level's unescaping (undefined: none given). */
  args?: string;
  /** Link labels, unescaped (`0:v`, `out0`). */
  labels: string[];
}

const WHITESPACE = ' \n\t\r';

/** FFmpeg's `av_get_token`: from `at` up to a character of `term`; returns the token and where it stopped. */
export function getToken(text: string, at: number, term: string): { token: string; end: number } {
  let p = at;
  while (p < text.length && WHITESPACE.includes(text[p]!)) p++;
  let out = '';
  // Trailing blanks are dropped, but not those that were escaped or quoted.
  let kept = 0;
  while (p < text.length && !term.includes(text[p]!)) {
    const c = text[p++]!;
    if (c === '\\') {
      if (p >= text.length) throw new GraphError('a backslash ends it (FFmpeg would keep it as it is)');
      out += text[p++];
      kept = out.length;
    } else if (c === "'") {
      const close = text.indexOf("'", p);
      if (close < 0) throw new GraphError("a quote (') is not closed");
      out += text.slice(p, close);
      p = close + 1;
      kept = out.length;
    } else out += c;
  }
  let length = out.length;
  while (length > kept && WHITESPACE.includes(out[length - 1]!)) length--;
  return { token: out.slice(0, length), end: p };
}

function skipBlanks(text: string, at: number): number {
  let p = at;
  while (p < text.length && WHITESPACE.includes(text[p]!)) p++;
  return p;
}

/** `[label]…` at `at`: the labels, unescaped, and where they end. */
function labelsAt(text: string, at: number, labels: string[]): number {
  let p = at;
  while (text[p] === '[') {
    const { token, end } = getToken(text, p + 1, ']');
    if (!token) throw new GraphError('a label is empty');
    if (text[end] !== ']') throw new GraphError("a label's [ is not closed");
    labels.push(token);
    p = skipBlanks(text, end + 1);
  }
  return p;
}

/** The filters of a graph, in order, as libavfilter's parser reads them. */
export function parseGraph(text: string): ParsedFilter[] {
  let p = skipBlanks(text, 0);
  if (text.startsWith('sws_flags=', p)) throw new GraphError('sws_flags= before the graph is not available');
  const filters: ParsedFilter[] = [];
  for (;;) {
    const labels: string[] = [];
    p = labelsAt(text, skipBlanks(text, p), labels);
    const name = getToken(text, p, '=,;[');
    p = name.end;
    let args: string | undefined;
    if (text[p] === '=') {
      const value = getToken(text, p + 1, '[],;');
      args = value.token;
      p = value.end;
    }
    p = labelsAt(text, p, labels);
    if (!name.token) throw new GraphError('a filter has no name');
    filters.push({ name: name.token, args, labels });
    p = skipBlanks(text, p);
    if (p >= text.length) return filters;
    const separator = text[p++];
    if (separator !== ',' && separator !== ';') throw new GraphError(`FFmpeg cannot read it from ${JSON.stringify(text.slice(p - 1, p + 20))}`);
  }
}

/** Whether a character can be part of an option key (libavutil's `is_key_char`). */
const isKeyChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_./-]/.test(c);

/** One option a filter's arguments set: `key` named, or `slot` (0, 1…) for a value without a key. */
export type FilterOption = { key: string; value: string } | { slot: number; value: string };

/** A filter's arguments as its option parser reads them (libavfilter's `process_options`). */
export function parseFilterOptions(args: string): FilterOption[] {
  const options: FilterOption[] = [];
  let p = 0;
  let named = false;
  let slot = 0;
  while (p < args.length) {
    // A key: key characters, blanks, then `=`.
    let q = skipBlanks(args, p);
    const keyStart = q;
    while (isKeyChar(args[q])) q++;
    const key = args.slice(keyStart, q);
    q = skipBlanks(args, q);
    if (args[q] === '=') {
      const value = getToken(args, q + 1, ':');
      options.push({ key, value: value.token });
      named = true;
      p = value.end;
    } else {
      if (named) throw new GraphError('a value without a key follows a keyed one (FFmpeg would give it to the first option)');
      const value = getToken(args, p, ':');
      options.push({ slot: slot++, value: value.token });
      p = value.end;
    }
    if (p < args.length) p++;
  }
  return options;
}
