import { describe, expect, it } from 'vitest';
import { parseFieldSelection, selectFields } from '#lib/google/fields.js';

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
    expect(select('fieldLimits/*/minValue')).toEqual({ fieldLimits: { integerLimits: { minValue: '-1' }, textLimits: {}, maxIdLength: 64 } });
    expect(select('*')).toEqual(doc);
    expect(select('fieldLimits,fieldLimits/maxIdLength')).toEqual({ fieldLimits: doc.fieldLimits });
    expect(select('nothing')).toEqual({});
  });

  it('rejects malformed selections', () => {
    expect(() => parseFieldSelection('a(b')).toThrow(/expected "\)"/);
    expect(() => parseFieldSelection('a,,b')).toThrow(/expected a field name/);
    expect(() => parseFieldSelection('a)')).toThrow(/unexpected/);
    expect(() => parseFieldSelection('a/')).toThrow(/expected a field name/);
  });
});
