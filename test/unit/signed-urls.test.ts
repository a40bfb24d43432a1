import { createHmac } from 'node:crypto';
import CloudConvert from 'cloudconvert';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#lib/kernel/errors.js';
import { decodeSignedJob, hmacMatches, MAX_SIGNED_JOB_BYTES, signedParameters, splitSignedQuery, verifiedUrl } from '#lib/file-api/signed-urls/wire.js';

const BASE = 'https://api.example.com/s/6f0c0f51-0000-4000-8000-000000000001';
const SECRET = 'a-signing-secret-of-the-base';
const sdk = new CloudConvert('unused');
/** Its base64 has several `+` and `/`; the SDK replaces only the first of each. */
const JOB = { tag: '>>>???>>>???', tasks: { out: { operation: 'export/url', input: 'in' } } };

const fieldsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.fields;
    throw err;
  }
  throw new Error('expected an ApiError');
};

describe('decodeSignedJob', () => {
  it('reads the SDK mix of alphabets, without padding', () => {
    const url = sdk.signedUrls.sign(BASE, SECRET, JOB as never, null);
    const param = url.slice(url.indexOf('job=') + 4, url.indexOf('&s='));
    expect(param).toMatch(/-.*\+|\+.*-/);
    expect(param.endsWith('=')).toBe(false);
    expect(decodeSignedJob(param).job).toEqual(JOB);
  });

  it('reads standard and URL-safe base64, padded or not, percent-escaped, and a + a form decoder made a space', () => {
    const std = Buffer.from(JSON.stringify(JOB)).toString('base64');
    const safe = Buffer.from(JSON.stringify(JOB)).toString('base64url');
    for (const form of [std, safe, std.replace(/=+$/, ''), encodeURIComponent(std), std.replaceAll('+', ' ')]) {
      expect(decodeSignedJob(form).job).toEqual(JOB);
    }
  });

  it('refuses what is not base64 JSON under the job field, and jobs over the size bound', () => {
    expect(fieldsOf(() => decodeSignedJob('%%%'))).toHaveProperty('job');
    expect(fieldsOf(() => decodeSignedJob('a*b'))).toHaveProperty('job');
    expect(fieldsOf(() => decodeSignedJob(Buffer.from('not json').toString('base64')))).toHaveProperty('job');
    expect(fieldsOf(() => decodeSignedJob(Buffer.from([0xff, 0xfe, 0x7b]).toString('base64')))).toHaveProperty('job');
    const big = Buffer.from(JSON.stringify({ tag: 'x'.repeat(MAX_SIGNED_JOB_BYTES) })).toString('base64');
    expect(fieldsOf(() => decodeSignedJob(big))!.job![0]).toMatch(/at most/);
    const deep = Buffer.from('['.repeat(40) + ']'.repeat(40)).toString('base64');
    expect(fieldsOf(() => decodeSignedJob(deep))!.job![0]).toMatch(/deeper/);
  });
});

describe('signature check', () => {
  const check = (url: string) => {
    const query = splitSignedQuery(url.slice(url.indexOf('?') + 1));
    return query && verifiedUrl(SECRET, BASE, query);
  };

  it('accepts the SDK URL, with and without cache key, and yields the signed parameters', () => {
    const plain = sdk.signedUrls.sign(BASE, SECRET, JOB as never, null);
    expect(signedParameters(check(plain)!)).toEqual({ job: expect.any(String) });
    const cached = sdk.signedUrls.sign(BASE, SECRET, JOB as never, 'key-1');
    expect(signedParameters(check(cached)!).cacheKey).toBe('key-1');
  });

  it('accepts the URL with characters a client or gateway percent-escaped', () => {
    const url = sdk.signedUrls.sign(BASE, SECRET, JOB as never, 'a key');
    const escaped = url.replaceAll('/', '%2F').replace('%2F%2F', '//').replace('a key', 'a%20key');
    expect(escaped).not.toBe(url);
    expect(check(`${BASE}?${escaped.slice(escaped.indexOf('?') + 1)}`)).toBeDefined();
  });

  it('refuses a changed character anywhere, another secret, another base, and signatures that are not 64 hex digits', () => {
    const url = sdk.signedUrls.sign(BASE, SECRET, JOB as never, 'key-1');
    for (let i = url.indexOf('?') + 1; i < url.length; i++) {
      if (url[i] === '&' || url[i] === '=') continue;
      const changed = url.slice(0, i) + (url[i] === 'a' ? 'b' : 'a') + url.slice(i + 1);
      expect(check(changed), `position ${i}`).toBeUndefined();
    }
    const other = sdk.signedUrls.sign(BASE, 'another secret', JOB as never, null);
    expect(check(other)).toBeUndefined();
    const otherBase = sdk.signedUrls.sign(`${BASE}x`, SECRET, JOB as never, null);
    expect(check(otherBase.replace(`${BASE}x`, BASE))).toBeUndefined();
    expect(hmacMatches(SECRET, 'm', 'zz')).toBe(false);
    // A changed character is refused even where it decodes to the same bytes (upper-case hex).
    expect(hmacMatches(SECRET, 'm', createHmac('sha256', SECRET).update('m').digest('hex').toUpperCase())).toBe(false);
  });

  it('takes the last &s= as the signature and keeps what follows it apart, unsigned', () => {
    const url = sdk.signedUrls.sign(BASE, SECRET, JOB as never, null);
    const query = splitSignedQuery(`${url.slice(url.indexOf('?') + 1)}&run=abc`)!;
    expect(query.unsigned.get('run')).toBe('abc');
    expect(verifiedUrl(SECRET, BASE, query)).toBeDefined();
    expect(splitSignedQuery('job=abc')).toBeUndefined();
  });

  it('refuses a signed query without job or with a repeated parameter', () => {
    expect(fieldsOf(() => signedParameters('cache_key=a'))).toHaveProperty('job');
    expect(fieldsOf(() => signedParameters('job=a&job=b'))).toHaveProperty('job');
  });
});
