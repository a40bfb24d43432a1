import { describe, expect, it } from 'vitest';
import { compileFilter, FilterError, parseFilter, type FieldSchema } from '#lib/google/filter.js';
import { ProtoEnum } from '#lib/google/wire.js';

const State = new ProtoEnum('test.State', ['STATE_UNSPECIFIED', 'STATE_READY', 'STATE_ACTIVE', 'STATE_PAUSED']);
const schema: FieldSchema = {
  name: { type: 'string' },
  displayName: { type: 'string' },
  state: { type: 'enum', enum: State },
  createTime: { type: 'timestamp' },
  count: { type: 'int' },
  done: { type: 'bool' },
  labels: { type: 'map' },
  'scan.source': { type: 'string' },
};

const rows = [
  { name: 'a', displayName: 'dc-a', state: 'STATE_ACTIVE', createTime: '2024-01-01T00:00:00.000Z', count: '5', done: true, labels: { env: 'dev' } },
  { name: 'b', displayName: 'dc-b', state: 'STATE_PAUSED', createTime: '2024-06-01T00:00:00.000Z', count: '500', labels: { env: 'prod', team: 'x' }, scan: { source: 's1' } },
  { name: 'c', displayName: 'lab "c"', state: 'STATE_READY', createTime: '2025-01-01T12:30:00.000Z' },
];
const match = (filter: string) => rows.filter(compileFilter(parseFilter(filter), schema)).map((r) => r.name);
const fails = (filter: string) => () => compileFilter(parseFilter(filter), schema);

describe('AIP-160 filters', () => {
  it('compares strings, with * as a wildcard in equality', () => {
    expect(match('displayName = "dc-a"')).toEqual(['a']);
    expect(match('displayName = "dc-*"')).toEqual(['a', 'b']);
    expect(match('displayName != "dc-*"')).toEqual(['c']);
    expect(match('display_name = dc-b')).toEqual(['b']);
    expect(match('displayName = "lab \\"c\\""')).toEqual(['c']);
    expect(match("displayName = 'dc-a'")).toEqual(['a']);
    expect(match('displayName:"lab"')).toEqual(['c']);
    expect(match('displayName > "dc-a"')).toEqual(['b', 'c']);
    expect(match('scan.source = "s1"')).toEqual(['b']);
  });

  it('compares enums by name or number, in enum order', () => {
    expect(match('state = STATE_ACTIVE')).toEqual(['a']);
    expect(match('state = 2')).toEqual(['a']);
    expect(match('state > STATE_READY')).toEqual(['a', 'b']);
    expect(fails('state = STATE_BOGUS')).toThrow(/not a value of state.*STATE_ACTIVE/);
  });

  it('compares timestamps (quoted or not), integers and booleans by value', () => {
    expect(match('createTime >= "2024-06-01T00:00:00Z"')).toEqual(['b', 'c']);
    expect(match('createTime <= 2024-06-01T02:00:00+02:00')).toEqual(['a', 'b']);
    expect(match('createTime < 2024-06-01T02:00:00+02:00')).toEqual(['a']);
    expect(match('createTime > "2025-01-01T12:29:59.999999999Z"')).toEqual(['c']);
    expect(match('count > 10')).toEqual(['b']);
    expect(match('count = 0')).toEqual(['c']);
    expect(match('done = true')).toEqual(['a']);
    expect(match('done = false')).toEqual(['b', 'c']);
    expect(fails('createTime > "yesterday"')).toThrow(FilterError);
    expect(fails('count > many')).toThrow(/expected an integer/);
    expect(fails('done = maybe')).toThrow(/true or false/);
  });

  it('tests map entries and keys', () => {
    expect(match('labels.env = "dev"')).toEqual(['a']);
    expect(match('labels.team:*')).toEqual(['b']);
    expect(match('labels:team')).toEqual(['b']);
    expect(match('labels.env != "dev"')).toEqual(['b', 'c']);
    expect(fails('labels = "x"')).toThrow(/map/);
  });

  it('combines with AND, OR, NOT, "-", juxtaposition and parentheses; OR binds tighter than AND', () => {
    expect(match('labels.env = "prod" AND name = "b" OR name = "a"')).toEqual(['b']);
    expect(match('(labels.env = "prod" AND name = "b") OR name = "a"')).toEqual(['a', 'b']);
    expect(match('displayName = "dc-*" state = STATE_PAUSED')).toEqual(['b']);
    expect(match('NOT state = STATE_ACTIVE')).toEqual(['b', 'c']);
    expect(match('-labels.env:*')).toEqual(['c']);
    expect(match('NOT (name = "a" OR name = "b")')).toEqual(['c']);
    expect(match('   ')).toEqual(['a', 'b', 'c']);
  });

  it('rejects malformed filters with the position of the problem', () => {
    expect(() => parseFilter('state = ')).toThrow(/expected a value after "=" at position 7/);
    expect(() => parseFilter('(state = STATE_ACTIVE')).toThrow(/expected "\)"/);
    expect(() => parseFilter('state = STATE_ACTIVE)')).toThrow(/unexpected/);
    expect(() => parseFilter('displayName = "open')).toThrow(/unterminated string/);
    expect(() => parseFilter('just-a-word')).toThrow(/global search is not supported/);
    expect(() => parseFilter('AND state = 1')).toThrow(/expected a field name/);
    expect(fails('colour = "red"')).toThrow(/unknown field "colour"/);
    expect(fails('state.sub = 1')).toThrow(/unknown field/);
  });
});

describe('filter limits', () => {
  it('refuses absurdly deep nesting instead of overflowing the stack', () => {
    expect(() => parseFilter('('.repeat(40) + 'name = "a"' + ')'.repeat(40))).toThrow(/nested parentheses/);
    expect(match('((((name = "a"))))')).toEqual(['a']);
  });
});
