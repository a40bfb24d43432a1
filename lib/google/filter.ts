/**
 * AIP-160 filtering, the subset list methods need: comparisons (`=`, `!=`, `<`, `<=`, `>`, `>=`, `:`)
 * of a field path against a literal, combined with `AND`, `OR`, `NOT` / `-`, implicit AND between
 * juxtaposed terms, and parentheses. As in AIP-160, `OR` binds tighter than `AND`:
 * `a = 1 AND b = 2 OR c = 3` means `a = 1 AND (b = 2 OR c = 3)`.
 *
 * A filter is parsed into a syntax tree (`parseFilter`), then compiled against the resource's field
 * schema (`compileFilter`), which checks every field name and literal and yields a predicate. Every
 * problem is a FilterError that names its position; callers turn it into INVALID_ARGUMENT.
 *
 * Filters are request text, so nothing here is super-linear in it: a filter is at most
 * MAX_FILTER_LENGTH characters with at most MAX_FILTER_WILDCARDS `*`, nesting is bounded, and `*`
 * wildcards are matched by `wildcardMatch` (no regular expression is ever built from a filter).
 */
import type { ProtoEnum } from './wire.js';
import { parseTimestampNanos } from './wire.js';

export class FilterError extends Error {
  override readonly name = 'FilterError';
}

export type Comparator = '=' | '!=' | '<' | '<=' | '>' | '>=' | ':';

export interface Literal {
  text: string;
  /** Written as a quoted string (then `*` is not a wildcard in comparisons other than `=`). */
  quoted: boolean;
}

export type FilterNode =
  | { kind: 'and'; items: FilterNode[] }
  | { kind: 'or'; items: FilterNode[] }
  | { kind: 'not'; item: FilterNode }
  | { kind: 'compare'; field: string[]; op: Comparator; value: Literal; at: number };

type Token =
  | { t: 'lparen' | 'rparen' | 'and' | 'or' | 'not' | 'minus'; at: number }
  | { t: 'cmp'; op: Comparator; at: number }
  | { t: 'text'; text: string; at: number }
  | { t: 'string'; text: string; at: number };

const COMPARATORS: Comparator[] = ['<=', '>=', '!=', '=', '<', '>', ':'];
/** Nesting allowed in a filter; deeper ones are refused rather than risking the stack. */
const MAX_DEPTH = 32;
/**
 * The longest filter accepted, in characters. Google documents no limit; real filters are a few
 * restrictions long (well under 200 characters), and a URL carrying more than 2000 is fragile anyway.
 */
export const MAX_FILTER_LENGTH = 2000;
/** The most `*` a filter may hold (wildcards and presence tests `:*` together); real ones use one or two. */
export const MAX_FILTER_WILDCARDS = 20;

/** Refuses a filter over the length or wildcard limit, before any other work is done on it. */
export function checkFilterLimits(input: string): void {
  if (input.length > MAX_FILTER_LENGTH) {
    throw new FilterError(`the filter is ${input.length} characters long; at most ${MAX_FILTER_LENGTH} characters are allowed`);
  }
  let stars = 0;
  for (let i = input.indexOf('*'); i >= 0; i = input.indexOf('*', i + 1)) stars++;
  if (stars > MAX_FILTER_WILDCARDS) {
    throw new FilterError(`the filter holds ${stars} wildcards (*); at most ${MAX_FILTER_WILDCARDS} wildcards are allowed`);
  }
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i + 1;
    if (c === '(' || c === ')') {
      tokens.push({ t: c === '(' ? 'lparen' : 'rparen', at });
      i++;
      continue;
    }
    const op = COMPARATORS.find((o) => input.startsWith(o, i));
    if (op) {
      tokens.push({ t: 'cmp', op, at });
      i += op.length;
      continue;
    }
    if (c === '"' || c === "'") {
      let text = '';
      let j = i + 1;
      for (; j < input.length && input[j] !== c; j++) {
        if (input[j] === '\\' && j + 1 < input.length) {
          j++;
          const e = input[j]!;
          text += e === 'n' ? '\n' : e === 't' ? '\t' : e;
        } else text += input[j];
      }
      if (j >= input.length) throw new FilterError(`unterminated string starting at position ${at}`);
      tokens.push({ t: 'string', text, at });
      i = j + 1;
      continue;
    }
    // A leading "-" directly before a term negates it (`-labels.env:*`); elsewhere it is part of a word.
    if (c === '-' && (tokens.length === 0 || tokens[tokens.length - 1]!.t !== 'cmp') && /[A-Za-z_(]/.test(input[i + 1] ?? '')) {
      tokens.push({ t: 'minus', at });
      i++;
      continue;
    }
    // A word. Right after a comparator it may hold ":" (an unquoted timestamp such as 2024-01-01T00:00:00Z).
    const afterComparator = tokens[tokens.length - 1]?.t === 'cmp';
    const re = afterComparator ? /^[^\s()"']+/ : /^[^\s()"'<>=!:]+/;
    const m = re.exec(input.slice(i));
    if (!m) throw new FilterError(`unexpected "${c}" at position ${at}`);
    const text = m[0];
    i += text.length;
    if (text === 'AND') tokens.push({ t: 'and', at });
    else if (text === 'OR') tokens.push({ t: 'or', at });
    else if (text === 'NOT') tokens.push({ t: 'not', at });
    else tokens.push({ t: 'text', text, at });
  }
  return tokens;
}

/** Parses a filter; an empty or blank filter is `undefined` (everything matches). */
export function parseFilter(input: string): FilterNode | undefined {
  checkFilterLimits(input);
  const tokens = tokenize(input);
  if (tokens.length === 0) return undefined;
  let p = 0;
  const peek = () => tokens[p];
  const describe = (tok: Token | undefined) =>
    !tok ? 'the end of the filter' : `"${'text' in tok ? tok.text : tok.t === 'cmp' ? tok.op : tok.t.toUpperCase()}" at position ${tok.at}`;
  const startsTerm = (tok: Token | undefined) =>
    !!tok && (tok.t === 'text' || tok.t === 'string' || tok.t === 'lparen' || tok.t === 'not' || tok.t === 'minus');

  const expression = (): FilterNode => {
    const items = [sequence()];
    while (peek()?.t === 'and') {
      p++;
      items.push(sequence());
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  };
  // Juxtaposed factors (`a=1 b=2`) are an implicit AND.
  const sequence = (): FilterNode => {
    const items = [factor()];
    while (startsTerm(peek())) items.push(factor());
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  };
  const factor = (): FilterNode => {
    const items = [term()];
    while (peek()?.t === 'or') {
      p++;
      items.push(term());
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  };
  const term = (): FilterNode => {
    const tok = peek();
    if (tok?.t === 'not' || tok?.t === 'minus') {
      p++;
      return { kind: 'not', item: simple() };
    }
    return simple();
  };
  let depth = 0;
  const simple = (): FilterNode => {
    const tok = peek();
    if (tok?.t === 'lparen') {
      if (++depth > MAX_DEPTH) throw new FilterError(`more than ${MAX_DEPTH} nested parentheses at position ${tok.at}`);
      p++;
      const inner = expression();
      depth--;
      if (peek()?.t !== 'rparen') throw new FilterError(`expected ")" but found ${describe(peek())}`);
      p++;
      return inner;
    }
    if (tok?.t !== 'text') {
      throw new FilterError(`expected a field name but found ${describe(tok)}`);
    }
    p++;
    const cmp = peek();
    if (cmp?.t !== 'cmp') {
      throw new FilterError(
        `"${tok.text}" at position ${tok.at} has no comparison; write a restriction such as field = value (global search is not supported)`,
      );
    }
    p++;
    const value = peek();
    if (value?.t !== 'text' && value?.t !== 'string') {
      throw new FilterError(`expected a value after "${cmp.op}" at position ${cmp.at} but found ${describe(value)}`);
    }
    p++;
    const field = tok.text.split('.');
    if (field.some((s) => s === '')) throw new FilterError(`"${tok.text}" at position ${tok.at} is not a field path`);
    return { kind: 'compare', field, op: cmp.op, value: { text: value.text, quoted: value.t === 'string' }, at: tok.at };
  };

  const tree = expression();
  if (p < tokens.length) throw new FilterError(`unexpected ${describe(tokens[p])}`);
  return tree;
}

/** How a filterable (and sortable) field is typed. */
export type FieldType =
  | { type: 'string' }
  | { type: 'bool' }
  | { type: 'int' }
  | { type: 'timestamp' }
  | { type: 'enum'; enum: ProtoEnum }
  | { type: 'map' };

/** Field paths (lowerCamelCase JSON names, dotted for nested messages) of a resource's JSON view. */
export type FieldSchema = Record<string, FieldType>;

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const longestPaths = new WeakMap<FieldSchema, number>();
function longestPath(schema: FieldSchema): number {
  let n = longestPaths.get(schema);
  if (n === undefined) {
    n = Math.max(0, ...Object.keys(schema).map((k) => k.split('.').length));
    longestPaths.set(schema, n);
  }
  return n;
}

/**
 * Resolves a field path (JSON or snake_case names) against the schema. Map fields take the key that
 * follows them verbatim (`labels.env`).
 */
export function resolveField(schema: FieldSchema, path: readonly string[]): { path: string; type: FieldType; mapKey?: string } | undefined {
  // No schema path is longer than a few segments: a longer request path (plus one map key) cannot
  // resolve, and trying every prefix of it would be quadratic in its length.
  if (path.length > longestPath(schema) + 1) return undefined;
  for (let n = path.length; n > 0; n--) {
    const name = path.slice(0, n).map(camel).join('.');
    const type = schema[name];
    if (!type) continue;
    if (n === path.length) return { path: name, type };
    if (type.type === 'map' && n === path.length - 1) return { path: name, type, mapKey: path[n]! };
    return undefined;
  }
  return undefined;
}

/** The value at a dotted path of a JSON object. */
export function valueAt(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export type Predicate = (resource: Record<string, unknown>) => boolean;

const ordered = (op: Comparator, c: number): boolean => {
  switch (op) {
    case '=':
    case ':':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
};

const cmpBig = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Whether `text` matches `pattern`, where each `*` stands for any run of characters (none included)
 * and everything else is literal. The pattern is split at its stars: the first piece must start the
 * text, the last must end it, and each piece between is found at its leftmost place after the one
 * before (leftmost is always safe: a later place leaves less room for the rest). No backtracking:
 * at worst O(text × pattern) character comparisons in `indexOf`, usually linear.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  const pieces = pattern.split('*');
  if (pieces.length === 1) return pattern === text;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (first.length + last.length > text.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]!;
    if (piece === '') continue;
    const found = text.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

function compileCompare(node: Extract<FilterNode, { kind: 'compare' }>, schema: FieldSchema): Predicate {
  const written = node.field.join('.');
  const resolved = resolveField(schema, node.field);
  if (!resolved) {
    throw new FilterError(`unknown field "${written}" at position ${node.at}; filterable fields: ${Object.keys(schema).join(', ')}`);
  }
  const { op, value } = node;
  const where = `for ${written} at position ${node.at}`;
  const presence = op === ':' && value.text === '*' && !value.quoted;
  const type = resolved.type;

  if (type.type === 'map') {
    if (resolved.mapKey === undefined) {
      // `labels:env` — the map has the key.
      if (op !== ':') throw new FilterError(`a map can only be tested with ":" (has key) ${where}; compare its entries as ${written}.key`);
      return (r) => {
        const map = valueAt(r, resolved.path);
        return !!map && typeof map === 'object' && Object.prototype.hasOwnProperty.call(map, value.text);
      };
    }
    const key = resolved.mapKey;
    const entry = (r: Record<string, unknown>) => {
      const map = valueAt(r, resolved.path) as Record<string, unknown> | undefined;
      const v = map && typeof map === 'object' ? map[key] : undefined;
      return typeof v === 'string' ? v : undefined;
    };
    if (presence) return (r) => entry(r) !== undefined;
    return stringPredicate((r) => entry(r) ?? '', op, value);
  }

  if (presence) {
    return (r) => {
      const v = valueAt(r, resolved.path);
      return v !== undefined && v !== null && v !== '' && v !== false && v !== 0 && v !== '0' &&
        !(type.type === 'enum' && (v === type.enum.unspecified || v === 0));
    };
  }

  switch (type.type) {
    case 'string': {
      const get = (r: Record<string, unknown>) => {
        const v = valueAt(r, resolved.path);
        return typeof v === 'string' ? v : '';
      };
      return stringPredicate(get, op, value);
    }
    case 'bool': {
      if (value.text !== 'true' && value.text !== 'false') throw new FilterError(`expected true or false ${where}, not "${value.text}"`);
      if (op !== '=' && op !== '!=' && op !== ':') throw new FilterError(`a boolean can only be compared with = or != ${where}`);
      const want = value.text === 'true';
      return (r) => ordered(op, (valueAt(r, resolved.path) === true) === want ? 0 : 1);
    }
    case 'int': {
      if (!/^-?\d+$/.test(value.text)) throw new FilterError(`expected an integer ${where}, not "${value.text}"`);
      const want = BigInt(value.text);
      return (r) => {
        const v = valueAt(r, resolved.path);
        const have = typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v)) ? BigInt(v) : 0n;
        return ordered(op, cmpBig(have, want));
      };
    }
    case 'timestamp': {
      const want = parseTimestampNanos(value.text);
      if (want === undefined) {
        throw new FilterError(`expected an RFC 3339 timestamp such as "2024-05-01T12:00:00Z" ${where}, not "${value.text}"`);
      }
      return (r) => {
        const v = valueAt(r, resolved.path);
        const have = typeof v === 'string' ? parseTimestampNanos(v) : undefined;
        if (have === undefined) return op === '!=';
        return ordered(op, cmpBig(have, want));
      };
    }
    case 'enum': {
      const want = type.enum.parse(value.text);
      if (want === undefined) {
        throw new FilterError(`"${value.text}" is not a value of ${written} ${where}; use one of ${type.enum.names.join(', ')}`);
      }
      const wantNumber = type.enum.numberOf(want);
      return (r) => {
        const v = type.enum.parse(valueAt(r, resolved.path)) ?? type.enum.unspecified;
        return ordered(op, Math.sign(type.enum.numberOf(v) - wantNumber));
      };
    }
  }
}

function stringPredicate(get: (r: Record<string, unknown>) => string, op: Comparator, value: Literal): Predicate {
  if ((op === '=' || op === '!=') && value.text.includes('*')) {
    // AIP-160: `*` in an equality is a wildcard (`displayName = "dc-*"`).
    const pattern = value.text;
    return (r) => wildcardMatch(pattern, get(r)) === (op === '=');
  }
  if (op === ':') return (r) => get(r).includes(value.text);
  return (r) => ordered(op, cmpStr(get(r), value.text));
}

/** Compiles a parsed filter against a field schema; throws FilterError for unknown fields and bad literals. */
export function compileFilter(tree: FilterNode | undefined, schema: FieldSchema): Predicate {
  if (!tree) return () => true;
  switch (tree.kind) {
    case 'and': {
      const items = tree.items.map((i) => compileFilter(i, schema));
      return (r) => items.every((p) => p(r));
    }
    case 'or': {
      const items = tree.items.map((i) => compileFilter(i, schema));
      return (r) => items.some((p) => p(r));
    }
    case 'not': {
      const item = compileFilter(tree.item, schema);
      return (r) => !item(r);
    }
    case 'compare':
      return compileCompare(tree, schema);
  }
}
