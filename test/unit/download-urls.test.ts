/** The service's own signed download URLs: names in paths, signatures, expiry, the signing key. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '#lib/kernel/config.js';
import { DownloadUrlSigner, downloadPath, urlSafeName } from '#lib/adapters/file-store/download-urls.js';
import { TEST_CONFIG_ENV } from '../support/recording-queue.js';

const key = Buffer.alloc(32, 7);
const signer = new DownloadUrlSigner(key);
const taskId = '0b6f7a4e-4c1e-4d7e-9f43-2f7c0b1d9a10';
const now = 1_800_000_000;

describe('download paths', () => {
  it('carry the task, the file index and a name made only of characters no gateway decodes', () => {
    expect(downloadPath(taskId, 0, 'report.pdf')).toBe(`/v2/files/${taskId}/0/report.pdf`);
    expect(urlSafeName('a file (1).txt')).toBe('a_file__1_.txt');
    expect(urlSafeName('what?#100%/x.png')).toBe('what__100__x.png');
    expect(urlSafeName('résumé.pdf')).toBe('r_sum_.pdf');
    expect(urlSafeName('')).toBe('file');
    expect(urlSafeName('..')).toBe('file');
    expect(urlSafeName('.')).toBe('file');
    expect(urlSafeName(`${'x'.repeat(300)}.pdf`)).toHaveLength(120);
    expect(urlSafeName(`${'x'.repeat(300)}.pdf`).endsWith('.pdf')).toBe(true);
  });
});

describe('signed URLs', () => {
  const path = downloadPath(taskId, 0, 'report.pdf');
  const url = new URL(signer.signedUrl('https://api.example.com', path, now + 60));
  const expires = url.searchParams.get('expires')!;
  const signature = url.searchParams.get('signature')!;

  it('are the path with an expiry and a hex HMAC-SHA256', () => {
    expect(url.origin + url.pathname).toBe(`https://api.example.com${path}`);
    expect(expires).toBe(String(now + 60));
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
  });

  it('check as valid until they expire, then as expired', () => {
    expect(signer.check(path, expires, signature, now)).toBe('valid');
    expect(signer.check(path, expires, signature, now + 60)).toBe('valid');
    expect(signer.check(path, expires, signature, now + 61)).toBe('expired');
  });

  it('check as invalid when anything signed was changed, or with another key', () => {
    expect(signer.check(path.replace('/0/', '/1/'), expires, signature, now)).toBe('invalid');
    expect(signer.check(path.replace(taskId, taskId.replace('0b6f', '1b6f')), expires, signature, now)).toBe('invalid');
    expect(signer.check(path, String(now + 3600), signature, now)).toBe('invalid');
    expect(signer.check(path, `${expires}.0`, signature, now)).toBe('invalid');
    expect(signer.check(path, expires, signature.toUpperCase(), now)).toBe('invalid');
    expect(signer.check(path, expires, signature.slice(2), now)).toBe('invalid');
    expect(signer.check(path, expires, `${signature}00`, now)).toBe('invalid');
    expect(signer.check(path, expires, undefined, now)).toBe('invalid');
    expect(signer.check(path, undefined, signature, now)).toBe('invalid');
    expect(new DownloadUrlSigner(Buffer.alloc(32, 8)).check(path, expires, signature, now)).toBe('invalid');
  });

  it('check a forged expiry as invalid, not as expired: only a signed expiry is believed', () => {
    expect(signer.check(path, String(now - 10), signature, now)).toBe('invalid');
  });
});

describe('settings', () => {
  it('URL_SIGNING_SECRET must be long enough to be a key; UPLOAD_FORM_SECONDS defaults to an hour', () => {
    expect(parseConfig({ ...TEST_CONFIG_ENV }).URL_SIGNING_SECRET).toBeUndefined();
    expect(parseConfig({ ...TEST_CONFIG_ENV }).UPLOAD_FORM_SECONDS).toBe(3600);
    expect(parseConfig({ ...TEST_CONFIG_ENV, URL_SIGNING_SECRET: 'k'.repeat(32) }).URL_SIGNING_SECRET).toBe('k'.repeat(32));
    expect(() => parseConfig({ ...TEST_CONFIG_ENV, URL_SIGNING_SECRET: 'short' })).toThrow(/URL_SIGNING_SECRET/);
    expect(() => parseConfig({ ...TEST_CONFIG_ENV, UPLOAD_FORM_SECONDS: '0' })).toThrow(/UPLOAD_FORM_SECONDS/);
  });

  it('never put the secret in the configuration error', () => {
    try {
      parseConfig({ ...TEST_CONFIG_ENV, URL_SIGNING_SECRET: 'tiny-secret' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).not.toContain('tiny-secret');
    }
  });
});
