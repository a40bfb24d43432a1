/** The optimize profiles' table (lib/engines/pdf/optimize-profiles.ts) and what the operation offers of it. */
import { describe, expect, it } from 'vitest';
import { OPTIMIZE_PROFILE_NAMES, optimizeSwitches, qFactor } from '#lib/engines/pdf/optimize-profiles.js';
import { optimize } from '#lib/file-api/operations/optimize/operation.js';

describe('optimize profiles', () => {
  it('maps a JPEG quality to the scale of the standard tables as libjpeg does', () => {
    expect([25, 50, 75, 90].map(qFactor)).toEqual([2, 1, 0.5, 0.2]);
    // Never a zero scale (tables of zeros), whatever the quality.
    expect(qFactor(100)).toBe(0.01);
    expect(qFactor(0)).toBe(50);
  });

  it('offers `quality` on Ghostscript, which re-encodes with it even under archive', () => {
    expect(optimize.engines!.capabilities.ghostscript![0]!.options).toContain('quality');
    expect(optimizeSwitches('archive', undefined, false).program).toEqual([]);
    const lossy = optimizeSwitches('archive', 40, false);
    expect(lossy.switches).toContain('-dPassThroughJPEGImages=false');
    expect(lossy.program.join(' ')).toContain('/QFactor 1.25');
  });

  it('accepts in the operation\'s schema every profile of the table, and no other', () => {
    const parsed = OPTIMIZE_PROFILE_NAMES.map((profile) => optimize.schema.safeParse({ input: 'x', profile }).success);
    expect(parsed.every(Boolean)).toBe(true);
    expect(optimize.schema.safeParse({ input: 'x', profile: 'ebook' }).success).toBe(false);
  });
});
