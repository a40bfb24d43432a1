import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#lib/kernel/log.js';
import { buildGraphiqlAssets, graphiqlAssetContents, installedGraphiqlVersion } from '#lib/graphql/server/graphiql-assets-build.js';
import {
  createAssetsHandler,
  GRAPHIQL_ASSET_FILES,
  GRAPHIQL_ASSET_VERSION,
  pickEncoding,
} from '#lib/graphql/server/graphiql-assets.js';

const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;

function event(file: string, headers: Record<string, string> = {}, method = 'GET'): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'GET /graphql/assets/{file}',
    rawPath: `/graphql/assets/${file}`,
    rawQueryString: `v=${GRAPHIQL_ASSET_VERSION}`,
    headers: { host: 'h', ...headers },
    pathParameters: { file },
    requestContext: {
      accountId: 'a',
      apiId: 'b',
      domainName: 'h',
      domainPrefix: 'h',
      http: { method, path: `/graphql/assets/${file}`, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'r',
      routeKey: 'GET /graphql/assets/{file}',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  };
}

let dir: string;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'graphiql-assets-'));
  dir = path.join(work, 'assets');
  await buildGraphiqlAssets(dir);
}, 180_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the explorer assets function', () => {
  it('serves every asset from the precompressed files, each response well under the 6 MB limit', async () => {
    const handler = createAssetsHandler({ dir });
    const originals = await graphiqlAssetContents();
    for (const file of GRAPHIQL_ASSET_FILES) {
      for (const [encoding, decode] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
        const res = await handler(event(file, { 'accept-encoding': encoding }));
        expect(res.statusCode, file).toBe(200);
        expect(res.isBase64Encoded).toBe(true);
        expect(res.headers?.['content-encoding']).toBe(encoding);
        expect(res.headers?.['cache-control']).toContain('immutable');
        expect(JSON.stringify(res).length, `${file} (${encoding})`).toBeLessThan(LAMBDA_RESPONSE_LIMIT / 2);
        expect(decode(Buffer.from(res.body as string, 'base64')).equals(originals[file]), `${file} (${encoding})`).toBe(true);
      }
    }
    const js = await handler(event('graphiql.js', { 'accept-encoding': 'gzip, deflate, br' }));
    expect(js.headers?.['content-type']).toMatch(/^text\/javascript/);
    expect(brotliDecompressSync(Buffer.from(js.body as string, 'base64')).toString('utf8')).toContain('renderYogaGraphiQL');
  });

  it('reads the files at request time: a file replaced on disk is what the next request gets', async () => {
    const own = path.join(work, 'replaced');
    cpSync(dir, own, { recursive: true });
    const handler = createAssetsHandler({ dir: own });
    await handler(event('graphiql.css', { 'accept-encoding': 'gzip' }));
    writeFileSync(path.join(own, 'graphiql.css.gz'), Buffer.from('new bytes'));
    const res = await handler(event('graphiql.css', { 'accept-encoding': 'gzip' }));
    expect(Buffer.from(res.body as string, 'base64').toString()).toBe('new bytes');
  });

  it('explains what to send when a client accepts no compression, and 404s unknown assets', async () => {
    const handler = createAssetsHandler({ dir });
    const plain = await handler(event('graphiql.js'));
    expect(plain.statusCode).toBe(406);
    expect(plain.body).toMatch(/accept-encoding: gzip/);
    for (const name of ['evil.js', '..%2F..%2Fpackage.json', 'constructor', 'STAMP']) {
      const unknown = await handler(event(name, { 'accept-encoding': 'br' }));
      expect(unknown.statusCode, name).toBe(404);
      expect(unknown.body).toContain('graphiql.js');
    }
    const post = await handler(event('graphiql.js', { 'accept-encoding': 'br' }, 'POST'));
    expect(post.statusCode).toBe(405);
  });

  it('answers 500 and logs the folder when the package lacks the files (never a crash)', async () => {
    const lines: string[] = [];
    const handler = createAssetsHandler({ dir: path.join(work, 'nowhere'), logger: createLogger({}, { write: (l) => lines.push(l) }) });
    const res = await handler(event('graphiql.js', { 'accept-encoding': 'br' }));
    expect(res.statusCode).toBe(500);
    expect(lines.join('\n')).toContain(path.join(work, 'nowhere', 'graphiql.js.br'));
  });

  it('picks brotli over gzip, honours q=0, and needs one of them', () => {
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('gzip, br;q=0')).toBe('gzip');
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('identity')).toBeUndefined();
    expect(pickEncoding(null)).toBeUndefined();
  });

  it('names the installed GraphiQL bundle version in asset URLs (so browsers refetch after an upgrade)', () => {
    expect(GRAPHIQL_ASSET_VERSION).toBe(installedGraphiqlVersion());
  });
});

describe('building the assets', () => {
  it('leaves an up-to-date folder alone and rebuilds one made for another version', async () => {
    const own = path.join(work, 'rebuild');
    cpSync(dir, own, { recursive: true, preserveTimestamps: true });
    const before = statSync(path.join(own, 'graphiql.js.br')).mtimeMs;
    expect((await buildGraphiqlAssets(own)).built).toBe(false);
    expect(statSync(path.join(own, 'graphiql.js.br')).mtimeMs).toBe(before);

    writeFileSync(path.join(own, 'STAMP'), 'an older version\n');
    expect((await buildGraphiqlAssets(own)).built).toBe(true);
    expect(readFileSync(path.join(own, 'STAMP'), 'utf8')).toContain(installedGraphiqlVersion());
  }, 180_000);

  it('ends with one complete folder when several processes build at once', async () => {
    const own = path.join(work, 'together');
    const results = await Promise.all([buildGraphiqlAssets(own), buildGraphiqlAssets(own), buildGraphiqlAssets(own)]);
    expect(results.every((r) => r.dir === own)).toBe(true);
    const again = await buildGraphiqlAssets(own);
    expect(again.built).toBe(false);
    // Every builder counted the same bytes, and no builder's temporary file was left behind.
    expect(results.map((r) => r.bytes)).toEqual([again.bytes, again.bytes, again.bytes]);
    expect(readdirSync(own).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 300_000);
});
