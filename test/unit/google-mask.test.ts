import { describe, expect, it } from 'vitest';
import type { ApiError } from '#lib/kernel/errors.js';
import { applyMask, parseUpdateMask } from '#lib/google/migration/mask.js';
import { COLLECTOR_MUTABLE, type Collector } from '#lib/google/migration/model.js';

const base: Collector = {
  name: 'projects/p/locations/l/collectors/c',
  createTime: '2024-01-01T00:00:00.000Z',
  updateTime: '2024-01-01T00:00:00.000Z',
  state: 'STATE_ACTIVE',
  displayName: 'dc',
  description: 'old',
  labels: { env: 'dev', team: 'a' },
  collectionDays: 7,
};

const refused = (mask: string) => {
  try {
    parseUpdateMask(mask);
  } catch (err) {
    return (err as ApiError).fields?.updateMask?.[0];
  }
  return undefined;
};

describe('update masks', () => {
  it('accepts snake_case, camelCase, * and label keys; absent means every mutable field', () => {
    expect(parseUpdateMask('display_name,description')).toEqual(['displayName', 'description']);
    expect(parseUpdateMask('displayName, labels')).toEqual(['displayName', 'labels']);
    expect(parseUpdateMask('*')).toEqual([...COLLECTOR_MUTABLE]);
    expect(parseUpdateMask(undefined)).toEqual([...COLLECTOR_MUTABLE]);
    expect(parseUpdateMask('labels.env,expected_asset_count')).toEqual(['labels.env', 'expectedAssetCount']);
    expect(parseUpdateMask('labels.env,labels')).toEqual(['labels']);
  });

  it('refuses unknown and output-only paths', () => {
    expect(refused('bogus')).toMatch(/not a Collector field/);
    expect(refused('state')).toMatch(/output only/);
    expect(refused('create_time')).toMatch(/output only/);
    expect(refused('displayName.x')).toMatch(/no sub-fields/);
    expect(refused('displayName,,description')).toMatch(/empty path/);
    expect(refused('labels.Bad Key')).toMatch(/label key/);
  });

  it('changes only the masked fields; a masked field missing from the body is cleared', () => {
    expect(applyMask(base, ['displayName'], { displayName: 'new', description: 'ignored' })).toEqual({ ...base, displayName: 'new' });
    const cleared = applyMask(base, ['description', 'labels'], {});
    expect(cleared.description).toBeUndefined();
    expect(cleared.labels).toBeUndefined();
    expect(applyMask(base, ['labels.env', 'labels.new'], { labels: { new: 'x' } }).labels).toEqual({ team: 'a', new: 'x' });
    expect(base.labels).toEqual({ env: 'dev', team: 'a' });
  });
});
