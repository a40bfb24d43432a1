import { describe, expect, it } from 'vitest';
import { ApiError } from '#lib/kernel/errors.js';
import { CreatureCatalog, MAX_PAGE_SIZE, creatureCatalog, creatureId } from '#lib/graphql/creatures/catalog.js';
import type { CreatureRecord } from '#lib/graphql/creatures/model.js';

const catalog = creatureCatalog();
const names = (records: CreatureRecord[]) => records.map((r) => r.name);

const apiError = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
};

describe('creature lookups', () => {
  it('finds a creature by name whatever the letter case and surrounding spaces', () => {
    expect(catalog.byName('Cindlet')?.number).toBe('001');
    expect(catalog.byName('  cINDLET ')?.number).toBe('001');
    expect(catalog.byName('Nobody')).toBeUndefined();
  });

  it('finds a creature by number with or without zero padding, and by its opaque id', () => {
    expect(catalog.byNumber('7')?.name).toBe(catalog.byNumber('007')?.name);
    expect(catalog.byNumber('151')).toBeUndefined();
    expect(catalog.byNumber('abc')).toBeUndefined();
    const id = creatureId('002');
    expect(catalog.byId(id)?.name).toBe('Cindrax');
    expect(catalog.byId('not-an-id')).toBeUndefined();
  });

  it('returns a creature only when all given criteria agree, and asks for one when none is given', () => {
    expect(catalog.find({ name: 'cindlet', number: '1' })?.name).toBe('Cindlet');
    expect(catalog.find({ name: 'cindlet', number: '2' })).toBeUndefined();
    const err = apiError(() => catalog.find({}));
    expect(err.reason).toBe('INVALID_ARGUMENT');
    expect(err.message).toMatch(/name .*id or number/);
  });

  it('resolves evolution links to records', () => {
    const first = catalog.byName('Cindlet') as CreatureRecord;
    expect(names(catalog.resolve(first.evolutions))).toEqual(['Cindrax', 'Cindrathor']);
  });

  it('refuses data whose evolution links point nowhere', () => {
    const broken = { ...(catalog.all[0] as CreatureRecord), evolutions: [{ number: '999', name: 'Ghost' }] };
    expect(() => new CreatureCatalog([broken])).toThrow(/unknown creature 999/);
  });
});

describe('creature listing', () => {
  it('lists all 150 in number order by default', () => {
    const all = catalog.list();
    expect(all).toHaveLength(150);
    expect(all.map((r) => r.number)).toEqual([...all.map((r) => r.number)].sort());
  });

  it('clamps first to the page size instead of failing, and rejects a negative first', () => {
    const small = new CreatureCatalog(catalog.all, { maxPageSize: 20 });
    expect(small.list({ first: 1_000_000 })).toHaveLength(20);
    expect(small.list()).toHaveLength(20);
    expect(catalog.list({ first: 10_000 })).toHaveLength(MAX_PAGE_SIZE);
    expect(catalog.list({ first: 0 })).toEqual([]);
    expect(apiError(() => catalog.list({ first: -1 })).message).toBe('first must be between 0 and 150, got -1');
  });

  it('pages with after = the id of the last creature of the previous page', () => {
    const page1 = catalog.list({ first: 4 });
    const page2 = catalog.list({ first: 4, after: catalog.idOf(page1.at(-1) as CreatureRecord) });
    expect(page2.map((r) => r.number)).toEqual(['005', '006', '007', '008']);
    expect(apiError(() => catalog.list({ after: 'bogus' })).message).toMatch(/after must be the id of a creature/);
  });

  it('filters by type case-insensitively and names the known types when the type is unknown', () => {
    const ember = catalog.list({ type: 'eMBER' });
    expect(ember.length).toBeGreaterThan(3);
    expect(ember.every((r) => r.types.includes('Ember'))).toBe(true);
    const err = apiError(() => catalog.list({ type: 'Lava' }));
    expect(err.message).toMatch(/^unknown type "Lava"; known types: .*Ember/);
    expect(catalog.typeNames).toHaveLength(16);
  });
});
