/** The sign-in throttle's key and delays (lib/access/auth/sign-in-throttle.ts): per address (IPv6 by /64), growing, capped. */
import { describe, expect, it } from 'vitest';
import { addressKey, SignInThrottle } from '#lib/access/auth/sign-in-throttle.js';
import type { StateStore } from '#lib/adapters/state/port.js';

describe('sign-in throttle', () => {
  it('keys IPv4 by address and IPv6 by its /64, whatever the spelling', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:eeee:dddd:cccc')).toBe(addressKey('2001:db8:1:2::9'));
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    expect(addressKey(undefined)).toBe('unknown');
  });

  it('lets the free failures through, then doubles the delay up to the cap: never a lockout', () => {
    const throttle = new SignInThrottle({} as StateStore, { freeFailures: 5, delaySeconds: 1, maxDelaySeconds: 300 });
    expect([0, 1, 5].map((n) => throttle.delayAfter(n))).toEqual([0, 0, 0]);
    expect([6, 7, 8, 9].map((n) => throttle.delayAfter(n))).toEqual([1, 2, 4, 8]);
    expect(throttle.delayAfter(14)).toBe(256);
    expect(throttle.delayAfter(15)).toBe(300);
    expect(throttle.delayAfter(10_000)).toBe(300);
  });
});
