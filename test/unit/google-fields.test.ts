import { describe, expect, expectTypeOf, it } from 'vitest';
import type { drivelabels_v2beta, rapidmigrationassessment_v1 } from 'googleapis';
import { anyField, checkFieldSelection, mapOf, message, OPEN, parseFieldSelection, SCALAR, selectFields, type MessageType } from '#lib/google/fields.js';
import { LABEL_LIMITS, LABEL_LIMITS_MESSAGE } from '#lib/google/label-limits.js';
import * as Messages from '#lib/google/migration/messages.js';

const doc = {
  name: 'limits/label',
  maxFields: 10,
  fieldLimits: { maxIdLength: 64, integerLimits: { minValue: '-1', maxValue: '1' }, textLimits: { minLength: 0, maxLength: 5 } },
  items: [
    { id: 1, name: 'a', extra: true },
    { id: 2, name: 'b', extra: false },
  ],
};
const select = (fields: string) => selectFields(doc, parseFieldSelection(fields));

describe('partial responses (fields)', () => {
  it('selects top-level fields, sub-fields by path and by parentheses', () => {
    expect(select('name,maxFields')).toEqual({ name: 'limits/label', maxFields: 10 });
    expect(select('fieldLimits/integerLimits/maxValue')).toEqual({ fieldLimits: { integerLimits: { maxValue: '1' } } });
    expect(select('fieldLimits(maxIdLength,textLimits/maxLength)')).toEqual({ fieldLimits: { maxIdLength: 64, textLimits: { maxLength: 5 } } });
    expect(select('items(id),maxFields')).toEqual({ maxFields: 10, items: [{ id: 1 }, { id: 2 }] });
    expect(select('*')).toEqual(doc);
    expect(select('fieldLimits,fieldLimits/maxIdLength')).toEqual({ fieldLimits: doc.fieldLimits });
    expect(select('nothing')).toEqual({});
  });

  it('reads . as a path separator like /, in any mix with parentheses', () => {
    const slash = select('fieldLimits/integerLimits/maxValue,items/name');
    expect(slash).toEqual({ fieldLimits: { integerLimits: { maxValue: '1' } }, items: [{ name: 'a' }, { name: 'b' }] });
    for (const same of [
      'fieldLimits.integerLimits.maxValue,items.name',
      'fieldLimits/integerLimits.maxValue,items(name)',
      'fieldLimits(integerLimits(maxValue)),items.name',
      'fieldLimits.integerLimits(maxValue),items/name',
    ]) {
      expect(select(same), same).toEqual(slash);
    }
  });

  it('nests parentheses and merges repeated selections of one field', () => {
    expect(select('fieldLimits(integerLimits(minValue),textLimits(maxLength)),fieldLimits.maxIdLength')).toEqual({
      fieldLimits: { integerLimits: { minValue: '-1' }, textLimits: { maxLength: 5 }, maxIdLength: 64 },
    });
    expect(select('items(id),items(name)')).toEqual({ items: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }] });
  });

  it('reads * as every field of its level; below it only the sub-messages that hold the selection are kept', () => {
    expect(select('fieldLimits/*')).toEqual({ fieldLimits: doc.fieldLimits });
    expect(select('items(*)')).toEqual({ items: doc.items });
    // A scalar has no minValue: selecting inside it selects nothing.
    expect(select('fieldLimits/*/minValue')).toEqual({ fieldLimits: { integerLimits: { minValue: '-1' }, textLimits: {} } });
    expect(select('fieldLimits.*(maxValue,maxLength)')).toEqual({ fieldLimits: { integerLimits: { maxValue: '1' }, textLimits: { maxLength: 5 } } });
  });

  it('tolerates white space around names, separators and parentheses', () => {
    expect(select(' name , fieldLimits ( maxIdLength , integerLimits . maxValue ) ')).toEqual({
      name: 'limits/label',
      fieldLimits: { maxIdLength: 64, integerLimits: { maxValue: '1' } },
    });
    expect(select('name,\titems / id')).toEqual({ name: 'limits/label', items: [{ id: 1 }, { id: 2 }] });
  });

  it('keeps the @type of an Any it selects inside, so that the answer still parses', () => {
    const op = { name: 'o', response: { '@type': 'type.googleapis.com/x.Collector', name: 'c', state: 'STATE_ACTIVE' } };
    expect(selectFields(op, parseFieldSelection('response.name'))).toEqual({ response: { '@type': 'type.googleapis.com/x.Collector', name: 'c' } });
  });

  it('rejects malformed selections with the position of the problem', () => {
    for (const [text, problem] of [
      ['a(b', /expected "\)" at position 4/],
      ['a(b))', /unexpected "\)" at position 5/],
      ['a)', /unexpected "\)"/],
      ['(a)', /expected a field name at position 1/],
      ['a,,b', /expected a field name at position 3/],
      ['a,', /expected a field name/],
      [',a', /expected a field name at position 1/],
      ['a/', /expected a field name/],
      ['a.', /expected a field name/],
      ['.a', /expected a field name at position 1/],
      ['a..b', /expected a field name at position 3/],
      ['a/.b', /expected a field name/],
      ['a()', /expected a field name at position 3/],
      ['a(b)c', /unexpected "c"/],
      ['a(b).c', /unexpected "\."/],
      ['a b', /unexpected "b"/],
      ['a*', /unexpected "\*"/],
      ['a;b', /expected a field name|unexpected ";"/],
    ] as const) {
      expect(() => parseFieldSelection(text), text).toThrow(problem);
    }
    expect(() => parseFieldSelection('a('.repeat(40) + 'b' + ')'.repeat(40))).toThrow(/nested/);
    expect(() => parseFieldSelection(Array.from({ length: 40 }, () => 'a').join('.'))).toThrow(/nested/);
  });
});

const INNER = message('x.Inner', { minValue: SCALAR, maxValue: SCALAR });
const ITEM = message('x.Item', { id: SCALAR, name: SCALAR, inner: INNER });
const DOC = message('x.Doc', {
  name: SCALAR,
  items: ITEM,
  labels: mapOf(SCALAR),
  byKey: mapOf(ITEM),
  payload: anyField(ITEM, INNER),
  details: OPEN,
  nextPageToken: SCALAR,
});
const check = (text: string, type: MessageType = DOC) => checkFieldSelection(parseFieldSelection(text), type);

describe('checking a selection against the response message', () => {
  it('accepts the fields of the message, at any depth, through repeated fields, maps, Any and open values', () => {
    for (const ok of [
      'name',
      '*',
      'name,nextPageToken',
      'items.name',
      'items(id,inner(minValue))',
      'items/*',
      'items/inner/*',
      '*/minValue',
      '*(id)',
      'labels',
      'labels.env',
      'byKey.k1.name',
      'payload',
      'payload.@type',
      'payload(id,maxValue)',
      'details.anything.at.all',
    ]) {
      expect(() => check(ok), ok).not.toThrow();
    }
  });

  it('refuses a field the message does not have, naming the whole path', () => {
    for (const [text, path] of [
      ['nosuch', 'nosuch'],
      ['name,nosuch', 'nosuch'],
      ['items.nosuch', 'items.nosuch'],
      ['items(id,inner(nosuch))', 'items.inner.nosuch'],
      ['items/inner/minValue/deeper', 'items.inner.minValue.deeper'],
      ['name.first', 'name.first'],
      ['Name', 'Name'],
      ['next_page_token', 'next_page_token'],
      ['byKey.k1.nosuch', 'byKey.k1.nosuch'],
      ['payload.nosuch', 'payload.nosuch'],
      ['labels.env.deeper', 'labels.env.deeper'],
    ] as const) {
      expect(() => check(text), text).toThrow(expect.objectContaining({ path }));
    }
    expect(() => check('nosuch')).toThrow(/x\.Doc has no field "nosuch"/);
    // Below *, at least one sub-message must have the field (on DOC a map key could be anything).
    expect(() => check('*/nosuch', ITEM)).toThrow(expect.objectContaining({ path: '*.nosuch' }));
    expect(() => check('*/minValue', ITEM)).not.toThrow();
  });
});

describe('the response messages match the published schemas (googleapis types)', () => {
  type Fields<M> = M extends MessageType<infer F> ? keyof F : never;
  it('has every field of every response type, and no other', () => {
    expectTypeOf<Fields<typeof Messages.COLLECTOR>>().toEqualTypeOf<keyof rapidmigrationassessment_v1.Schema$Collector>();
    expectTypeOf<Fields<typeof Messages.ANNOTATION>>().toEqualTypeOf<keyof rapidmigrationassessment_v1.Schema$Annotation>();
    expectTypeOf<Fields<typeof Messages.LOCATION>>().toEqualTypeOf<keyof rapidmigrationassessment_v1.Schema$Location>();
    expectTypeOf<Fields<typeof Messages.OPERATION>>().toEqualTypeOf<keyof rapidmigrationassessment_v1.Schema$Operation>();
    expectTypeOf<Fields<typeof Messages.OPERATION_METADATA>>().toEqualTypeOf<keyof rapidmigrationassessment_v1.Schema$OperationMetadata>();
    expectTypeOf<Fields<typeof Messages.STATUS>>().toEqualTypeOf<keyof rapidmigrationassessment_v1.Schema$Status>();
    expectTypeOf<Fields<typeof Messages.LIST_COLLECTORS>>().toEqualTypeOf<keyof rapidmigrationassessment_v1.Schema$ListCollectorsResponse>();
    expectTypeOf<Fields<typeof Messages.LIST_LOCATIONS>>().toEqualTypeOf<keyof rapidmigrationassessment_v1.Schema$ListLocationsResponse>();
    // `unreachable` came to google.longrunning with returnPartialSuccess (the spec's §2.2), after this discovery document.
    expectTypeOf<Fields<typeof Messages.LIST_OPERATIONS>>().toEqualTypeOf<keyof rapidmigrationassessment_v1.Schema$ListOperationsResponse | 'unreachable'>();
    expectTypeOf<Fields<typeof Messages.EMPTY>>().toEqualTypeOf<keyof rapidmigrationassessment_v1.Schema$Empty>();
    expectTypeOf<Fields<typeof LABEL_LIMITS_MESSAGE>>().toEqualTypeOf<keyof drivelabels_v2beta.Schema$GoogleAppsDriveLabelsV2betaLabelLimits>();
    type Limits = typeof LABEL_LIMITS_MESSAGE.fields;
    expectTypeOf<Fields<Limits['fieldLimits']>>().toEqualTypeOf<keyof drivelabels_v2beta.Schema$GoogleAppsDriveLabelsV2betaFieldLimits>();
    expectTypeOf<Fields<Limits['fieldLimits']['fields']['selectionLimits']>>().toEqualTypeOf<keyof drivelabels_v2beta.Schema$GoogleAppsDriveLabelsV2betaSelectionLimits>();
    // The runtime values carry the same names as their types.
    expect(Object.keys(Messages.COLLECTOR.fields)).toContain('vsphereScan');
    expect(Object.keys(LABEL_LIMITS_MESSAGE.fields)).toContain('fieldLimits');
  });

  it('accepts every field path of the label limits constant', () => {
    const paths = (v: unknown, at: string[] = []): string[] =>
      v !== null && typeof v === 'object' ? Object.entries(v).flatMap(([k, w]) => paths(w, [...at, k])) : [at.join('.')];
    for (const path of paths(LABEL_LIMITS)) expect(() => checkFieldSelection(parseFieldSelection(path), LABEL_LIMITS_MESSAGE), path).not.toThrow();
  });
});
