/**
 * Partial responses: the `fields` system parameter (`name,fieldLimits(textLimits,integerLimits/maxValue)`,
 * `collectors(name,state),nextPageToken`, `*`). A selection is a tree of JSON field names; a leaf keeps
 * the whole value, a subtree selects inside it, arrays apply the selection to each element.
 */

/** Field name → `true` (the whole value) or a nested selection. */
export type FieldSelection = Map<string, FieldSelection | true>;

function merge(into: FieldSelection, name: string, sub: FieldSelection | true) {
  const existing = into.get(name);
  if (existing === true || sub === true) into.set(name, true);
  else if (existing) for (const [k, v] of sub) merge(existing, k, v);
  else into.set(name, sub);
}

/** Parses the `fields` syntax; throws with the position of the first problem. */
export function parseFieldSelection(text: string): FieldSelection {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at position ${i + 1}`);
  };
  const name = (): string => {
    const m = /^[A-Za-z0-9_@$*.-]+/.exec(text.slice(i));
    if (!m) fail('expected a field name');
    i += m![0].length;
    return m![0];
  };
  const selection = (depth: number): FieldSelection => {
    if (depth > 32) fail('more than 32 nested selections');
    const out: FieldSelection = new Map();
    for (;;) {
      while (text[i] === ' ') i++;
      const path = [name()];
      while (text[i] === '/') {
        i++;
        path.push(name());
        // `a/b/c` nests as deep as `a(b(c))`, and merging it recurses that deep.
        if (depth + path.length > 33) fail('more than 32 nested selections');
      }
      let leaf: FieldSelection | true = true;
      if (text[i] === '(') {
        i++;
        leaf = selection(depth + 1);
        if (text[i] !== ')') fail('expected ")"');
        i++;
      }
      // a/b/c(d) is a(b(c(d))).
      let node: FieldSelection | true = leaf;
      for (let k = path.length - 1; k > 0; k--) node = new Map([[path[k]!, node]]);
      merge(out, path[0]!, node);
      while (text[i] === ' ') i++;
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (i === text.length || (depth > 0 && text[i] === ')')) return out;
      fail(`unexpected "${text[i]}"`);
    }
  };
  const out = selection(0);
  if (i !== text.length) fail('unexpected ")"');
  return out;
}

/** Applies a selection to a JSON value. */
export function selectFields(value: unknown, selection: FieldSelection): unknown {
  if (Array.isArray(value)) return value.map((v) => selectFields(v, selection));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  const wildcard = selection.get('*');
  for (const [key, v] of Object.entries(source)) {
    const sub = selection.get(key) ?? wildcard;
    if (sub === undefined) continue;
    out[key] = sub === true ? v : selectFields(v, sub);
  }
  return out;
}
