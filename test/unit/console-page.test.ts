/**
 * The console page's server pieces: the Content-Security-Policy, the socket address the browser is
 * given, the shell's escaping, where a sign-in may go next, and the local sign-in link's checks.
 */
import { describe, expect, it } from 'vitest';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { createS3Client, formOrigin } from '#lib/adapters/file-store/s3-file-store.js';
import { safeNext } from '#lib/file-api/account/page.js';
import { ASSET_NAME } from '#lib/web/console/assets.js';
import { consoleCsp, consoleShell, socketAddress } from '#lib/web/console/shell.js';
import { linkHash, newSignInLink, signInLinkUrl, signInLinkValid } from '#lib/web/console/sign-in-link.js';

const manifest = { script: 'console-AAAA1111.js', style: 'console-BBBB2222.css', sizes: {} };

describe('the console shell', () => {
  it('allows scripts and styles from the service only, and connections to the socket and storage given', () => {
    const csp = consoleCsp(['ws://127.0.0.1:4001', 'http://127.0.0.1:4568']);
    const directives = Object.fromEntries(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['style-src']).toEqual(["'self'"]);
    expect(directives['connect-src']).toEqual(["'self'", 'ws://127.0.0.1:4001', 'http://127.0.0.1:4568']);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe|\*/);
  });

  it('links the built assets and escapes the configuration into an attribute (no inline script)', () => {
    const page = consoleShell({
      manifest,
      config: { csrf: 'c"<sf>', user: { id: 1, username: '</div><script>alert(1)</script>', email: 'a@b.c' }, socket: null },
      connect: [],
    });
    const body = String(page.body);
    expect(body).toContain('<script type="module" src="/console/assets/console-AAAA1111.js"></script>');
    expect(body).toContain('<link rel="stylesheet" href="/console/assets/console-BBBB2222.css">');
    expect(body.match(/<script/g)).toHaveLength(1);
    expect(body).not.toContain('<script>alert');
    const attribute = /data-config="([^"]*)"/.exec(body)![1]!;
    const decoded = attribute.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    expect(JSON.parse(decoded).user.username).toBe('</div><script>alert(1)</script>');
    expect(page.headers!['cache-control']).toBe('no-store');
    expect(page.headers!['x-frame-options']).toBe('DENY');
  });

  it('gives the browser the WebSocket API as socket.io expects it', () => {
    expect(socketAddress('https://abc123.execute-api.eu-west-1.amazonaws.com/prod')).toEqual({ url: 'wss://abc123.execute-api.eu-west-1.amazonaws.com', path: '/prod' });
    expect(socketAddress('http://127.0.0.1:4001')).toEqual({ url: 'ws://127.0.0.1:4001', path: '/socket.io' });
    expect(socketAddress(undefined)).toBeNull();
  });

  it('allows connections to where upload forms really post, as the SDK signs them', async () => {
    const cases = [
      ['eu-west-1', undefined, 'files-bucket'],
      ['us-east-1', undefined, 'dotted.bucket.name'],
      ['eu-central-1', 'http://127.0.0.1:4568', 'local-bucket'],
    ] as const;
    for (const [region, endpoint, bucket] of cases) {
      const s3 = createS3Client({ region, endpoint, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } });
      const form = await createPresignedPost(s3, { Bucket: bucket, Key: 'tasks/x/input' });
      expect(formOrigin(s3, bucket, region, endpoint), bucket).toBe(new URL(form.url).origin);
    }
  });

  it('serves asset names of the built form only', () => {
    expect(ASSET_NAME.test(manifest.script)).toBe(true);
    for (const name of ['manifest.json', '../console-AAAA1111.js', 'console-AAAA1111.js.br', 'console-aaaa1111.js', 'x.js']) expect(ASSET_NAME.test(name)).toBe(false);
  });
});

describe('where a sign-in goes next', () => {
  it('goes to a console page or the account page, never elsewhere', () => {
    expect(safeNext('/console')).toBe('/console');
    expect(safeNext('/console/jobs/abc-1')).toBe('/console/jobs/abc-1');
    for (const bad of ['https://evil.example/console', '//evil.example', '/console/../oauth', '/consolex', '/console?x=1', '/console/a b', undefined, null, '']) {
      expect(safeNext(bad)).toBe('/account');
    }
  });
});

describe('the local sign-in link', () => {
  const { secret, hash } = newSignInLink();

  it('opens with its own secret on a loopback address', () => {
    for (const base of ['http://localhost:4000', 'http://127.0.0.1:4000', 'http://[::1]:4000']) {
      expect(signInLinkValid({ configuredHash: hash, baseUrl: base, presented: secret })).toBe(true);
    }
    expect(signInLinkUrl('http://localhost:4000', secret)).toBe(`http://localhost:4000/console/sign-in?token=${secret}`);
    expect(linkHash(secret)).toBe(hash);
  });

  it('never opens without the setting, with another secret, or on any other address', () => {
    expect(signInLinkValid({ configuredHash: '', baseUrl: 'http://localhost:4000', presented: secret })).toBe(false);
    expect(signInLinkValid({ configuredHash: hash, baseUrl: 'http://localhost:4000', presented: `${secret}x` })).toBe(false);
    expect(signInLinkValid({ configuredHash: hash, baseUrl: 'http://localhost:4000', presented: undefined })).toBe(false);
    for (const base of ['https://abc.execute-api.eu-west-1.amazonaws.com', 'http://192.168.1.5:4000', 'http://localhost.evil.example', 'not a url']) {
      expect(signInLinkValid({ configuredHash: hash, baseUrl: base, presented: secret })).toBe(false);
    }
  });
});
