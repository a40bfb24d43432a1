/** Password hashing: scrypt, salted, parameters stored with the hash, checked in constant time. */
import { describe, expect, it } from 'vitest';
import { generatePassword, hashPassword, passwordProblem, SCRYPT_PARAMS, verifyPassword } from '#lib/access/auth/passwords.js';

// Cheap parameters where the test is about the format, not the cost.
const FAST = { N: 2 ** 10, r: 8, p: 1 };

describe('password hashes', () => {
  it('use the recommended scrypt cost by default, and verify only the right password', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored.split('$').slice(0, 4)).toEqual(['scrypt', String(SCRYPT_PARAMS.N), '8', '1']);
    expect(SCRYPT_PARAMS.N).toBeGreaterThanOrEqual(2 ** 17);
    expect(stored).not.toContain('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
  });

  it('are salted: the same password hashes differently each time', async () => {
    const [a, b] = await Promise.all([hashPassword('same password', FAST), hashPassword('same password', FAST)]);
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password', a)).toBe(true);
    expect(await verifyPassword('same password', b)).toBe(true);
  });

  it('verify with the parameters stored in the hash, so older hashes keep working', async () => {
    const stored = await hashPassword('older one', { N: 2 ** 11, r: 4, p: 2 });
    expect(stored.startsWith('scrypt$2048$4$2$')).toBe(true);
    expect(await verifyPassword('older one', stored)).toBe(true);
  });

  it('never verify against a malformed or tampered hash', async () => {
    const stored = await hashPassword('pw-for-tampering', FAST);
    const parts = stored.split('$');
    for (const bad of [
      '',
      'plain$secret',
      ['bcrypt', ...parts.slice(1)].join('$'),
      ['scrypt', '1000', ...parts.slice(2)].join('$'), // N not a power of two
      ['scrypt', String(2 ** 30), ...parts.slice(2)].join('$'), // a cost that would exhaust memory
      [...parts.slice(0, 5), parts[5]!.slice(0, 8)].join('$'), // a truncated key
      [...parts.slice(0, 5), Buffer.from('x'.repeat(32)).toString('base64url')].join('$'),
    ]) {
      expect(await verifyPassword('pw-for-tampering', bad), bad).toBe(false);
    }
  });

  it('make random passwords of 20 characters, and refuse short chosen ones', () => {
    const a = generatePassword();
    expect(a).toMatch(/^[\w-]{20}$/);
    expect(generatePassword()).not.toBe(a);
    expect(passwordProblem('short')).toContain('at least 12');
    expect(passwordProblem('long enough pass')).toBeUndefined();
  });
});
