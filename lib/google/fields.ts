/**
 * Partial responses: the `fields` system parameter and the `X-Goog-FieldMask` header, read as Google
 * reads them. A path's names are separated by `.` or `/` alike (`collectors.name` is
 * `collectors/name`); parentheses select several sub-fields (`fieldLimits(textLimits,integerLimits.maxValue)`)
 * and nest; `*` is every field of its level; selections are separated by commas; white space around
 * names and punctuation is ignored. A selection into a repeated field applies to each element.
 *
 * A selection is checked against the response *message type*, not the answer: `fields=nosuch` is an
 * INVALID_ARGUMENT even when the list it would filter is empty, as Google answers it ("Invalid field
 * selection nosuch"). Checking the answer instead would make the same request valid or not depending
 * on the data, and would refuse a real field that happens to be unset.
 */

/** Field name → `true` (the whole value) or a nested selection. */
export type FieldSelection = Map<string, FieldSelection | true>;

// ---- Message types ----------------------------------------------------------------------------

/** What a selection can find inside a field. Repeated fields are their element type. */
export type FieldType =
  /** string, number, bool, enum, int64, Timestamp: nothing to select inside. */
  | typeof SCALAR
  /** Struct-like values whose contents have no published type (e.g. `google.rpc.Status.details`). */
  | typeof OPEN
  | MessageType
  /** map<string, V>: a sub-selection names keys. */
  | { readonly map: FieldType }
  /** google.protobuf.Any: `@type` plus the fields of any message it may hold. */
  | { readonly any: readonly MessageType[] };

export const SCALAR = 'scalar';
export const OPEN = 'open';

export interface MessageType<F extends Readonly<Record<string, FieldType>> = Readonly<Record<string, FieldType>>> {
  /** Full proto name, for messages. */
  readonly message: string;
  readonly fields: F;
}

/** A message type; its field names stay in the type, so tests can compare them with published schemas. */
export const message = <const F extends Readonly<Record<string, FieldType>>>(name: string, fields: F): MessageType<F> => ({ message: name, fields });
export const mapOf = (value: FieldType) => ({ map: value }) as const;
export const anyField = (...types: MessageType[]) => ({ any: types }) as const;

// ---- Parsing ----------------------------------------------------------------------------------

function merge(into: FieldSelection, name: string, sub: FieldSelection | true) {
  const existing = into.get(name);
  if (existing === true || sub === true) into.set(name, true);
  else if (existing) for (const [k, v] of sub) merge(existing, k, v);
  else into.set(name, sub);
}

const MAX_DEPTH = 32;
/** Sticky: matches at `lastIndex` only, so a long mask is read without copying its rest at each name. */
const NAME = /[A-Za-z0-9_@$-]+/y;

/**
 * Parses the `fields` syntax; throws with the position of the first problem. Names are JSON field
 * names or map keys (letters, digits, `_`, `-`, `$`, and `@` for an Any's `@type`), or `*`.
 */
export function parseFieldSelection(text: string): FieldSelection {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at position ${i + 1}`);
  };
  const space = () => {
    while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i++;
  };
  const name = (): string => {
    space();
    if (text[i] === '*') {
      i++;
      return '*';
    }
    NAME.lastIndex = i;
    const m = NAME.exec(text);
    if (!m) fail('expected a field name');
    i = NAME.lastIndex;
    return m![0];
  };
  const selection = (depth: number): FieldSelection => {
    if (depth > MAX_DEPTH) fail(`more than ${MAX_DEPTH} nested selections`);
    const out: FieldSelection = new Map();
    for (;;) {
      const path = [name()];
      for (space(); text[i] === '/' || text[i] === '.'; space()) {
        i++;
        path.push(name());
        // `a.b.c` nests as deep as `a(b(c))`, and merging it recurses that deep.
        if (depth + path.length > MAX_DEPTH + 1) fail(`more than ${MAX_DEPTH} nested selections`);
      }
      let leaf: FieldSelection | true = true;
      if (text[i] === '(') {
        i++;
        leaf = selection(depth + path.length);
        if (text[i] !== ')') fail('expected ")"');
        i++;
        space();
      }
      // a.b.c(d) is a(b(c(d))).
      let node: FieldSelection | true = leaf;
      for (let k = path.length - 1; k > 0; k--) node = new Map([[path[k]!, node]]);
      merge(out, path[0]!, node);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (i === text.length || (depth > 0 && text[i] === ')')) return out;
      fail(`unexpected "${text[i]}"`);
    }
  };
  const out = selection(0);
  if (i !== text.length) fail(`unexpected "${text[i]}"`);
  return out;
}

// ---- Checking against the response message -------------------------------------------------------

/** A selected field the response message does not have; `path` is the field as a dotted path. */
export class UnknownFieldError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** The fields a name may select in a value of this type, or undefined when the type has none to select. */
function fieldsOf(type: FieldType): Readonly<Record<string, FieldType>> | undefined {
  if (type === SCALAR || type === OPEN) return undefined;
  if ('fields' in type) return type.fields;
  if ('any' in type) return Object.assign({ '@type': SCALAR }, ...type.any.map((t) => t.fields)) as Record<string, FieldType>;
  return undefined;
}

const typeName = (type: FieldType): string =>
  type === SCALAR || type === OPEN ? 'a value' : 'message' in type ? type.message : 'any' in type ? 'google.protobuf.Any' : 'a map';

/** Whether a selection may look inside values of this type. */
const hasInside = (type: FieldType): boolean => type === OPEN || (type !== SCALAR && !('any' in type && !type.any.length));

function check(selection: FieldSelection, type: FieldType, at: string[]): void {
  if (type === OPEN) return;
  for (const [name, sub] of selection) {
    const path = [...at, name];
    const unknown = (why: string) => new UnknownFieldError(path.join('.'), `"${path.join('.')}": ${why}`);
    if (type !== SCALAR && 'map' in type) {
      // Any key may be selected; what is below it is checked against the value type.
      if (sub !== true) check(sub, type.map, path);
      continue;
    }
    const fields = fieldsOf(type);
    if (!fields) throw unknown(`${at.join('.')} is ${typeName(type)}, with no fields to select`);
    if (name === '*') {
      if (sub === true) continue;
      // `*.x` asks for x in every sub-message of this level: at least one of them must have it.
      const refusals: unknown[] = [];
      const holders = Object.values(fields).filter((t) => {
        if (!hasInside(t)) return false;
        try {
          check(sub, t, path);
          return true;
        } catch (err) {
          refusals.push(err);
          return false;
        }
      });
      if (!holders.length) throw refusals[0] ?? unknown(`${typeName(type)} has no sub-messages to select inside`);
      continue;
    }
    // Own properties only: `constructor` or `__proto__` are not fields.
    const field = Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
    if (field === undefined) throw unknown(`${typeName(type)} has no field "${name}"; its fields: ${Object.keys(fields).join(', ')}`);
    if (sub !== true) check(sub, field, path);
  }
}

/** Throws UnknownFieldError for the first selected field the message type does not have. */
export function checkFieldSelection(selection: FieldSelection, type: MessageType): void {
  check(selection, type, []);
}

// ---- Applying -------------------------------------------------------------------------------------

/** An object, or a list of them: what a sub-selection can apply to (a list of strings cannot hold one). */
const holdsMessages = (v: unknown): boolean =>
  Array.isArray(v) ? v.every((e) => e !== null && typeof e === 'object') : v !== null && typeof v === 'object';

/**
 * Applies a selection to a JSON value. Below `*`, a scalar cannot hold a sub-selection and drops out.
 * An Any keeps its `@type` whenever anything inside it is selected: without it the answer cannot be
 * decoded (the GAPIC client throws on an Any without one).
 */
export function selectFields(value: unknown, selection: FieldSelection): unknown {
  if (Array.isArray(value)) return value.map((v) => selectFields(v, selection));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  const wildcard = selection.get('*');
  for (const [key, v] of Object.entries(source)) {
    // Reached through a sub-selection, so an Any's `@type` stays (see above).
    const sub = selection.get(key) ?? wildcard ?? (key === '@type' ? true : undefined);
    if (sub === undefined) continue;
    if (sub === true) out[key] = v;
    else if (holdsMessages(v)) out[key] = selectFields(v, sub);
  }
  return out;
}
