/**
 * Class 3 of issue 10, second half: a deployed stage enforces authentication on the Google-dialect
 * APIs unless told otherwise. The packaged template (serverless.yml) sets GOOGLE_AUTH_MODE to
 * `enforced` by default for every function that serves them, the configuration's own default is
 * `enforced` too, and only an explicit `open` (what `npm start` sets, and says so) lets anonymous
 * requests through.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';
import { parseConfig } from '#lib/kernel/config.js';
import { googleAuthBanner } from '../../local/emulator.js';
import type * as Limits from '#functions/labels/limits.js';
import type * as Api from '#functions/migration/api.js';

interface FunctionDef {
  handler: string;
  environment?: Record<string, string>;
  events?: Array<{ httpApi?: { method: string; path: string } }>;
}
const service = parse(readFileSync('serverless.yml', 'utf8')) as {
  provider: { environment?: Record<string, string> };
  functions: Record<string, FunctionDef>;
};

/** The value a `${env:NAME, 'default'}` setting takes when NAME is not set at deploy time. */
function deployedDefault(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const m = /^\$\{env:([A-Z_]+),\s*'([^']*)'\}$/.exec(value);
  return m ? m[2] : value;
}

const servesGoogle = (f: FunctionDef) =>
  (f.events ?? []).some((e) => e.httpApi && (e.httpApi.path.startsWith('/v1/') || e.httpApi.path.startsWith('/v2beta/')));

describe('the packaged template', () => {
  it('enforces authentication on every function serving a Google API unless GOOGLE_AUTH_MODE says otherwise', () => {
    const google = Object.entries(service.functions).filter(([, f]) => servesGoogle(f));
    expect(google.map(([name]) => name).sort()).toEqual(['labelLimits', 'migrationApi']);
    for (const [name, f] of google) {
      const setting = f.environment?.GOOGLE_AUTH_MODE ?? service.provider.environment?.GOOGLE_AUTH_MODE;
      expect(setting, name).toMatch(/^\$\{env:GOOGLE_AUTH_MODE, '[a-z]+'\}$/);
      expect(deployedDefault(setting), name).toBe('enforced');
    }
  });

  it('has enforced as the configuration default, open only when set explicitly', () => {
    const minimal = { STATE_TABLE: 't', FILES_BUCKET: 'b', IMPORT_QUEUE: 'i', PROCESS_QUEUE: 'p', EXPORT_QUEUE: 'e', OPERATIONS_QUEUE: 'o', WEBHOOKS_QUEUE: 'w' };
    expect(parseConfig(minimal).GOOGLE_AUTH_MODE).toBe('enforced');
    expect(parseConfig({ ...minimal, GOOGLE_AUTH_MODE: 'open' }).GOOGLE_AUTH_MODE).toBe('open');
    expect(() => parseConfig({ ...minimal, GOOGLE_AUTH_MODE: 'off' })).toThrow(/GOOGLE_AUTH_MODE/);
  });

  it("npm start's banner says when the Google APIs are open", () => {
    expect(googleAuthBanner('open')).toMatch(/open.*no key needed/i);
    expect(googleAuthBanner('open')).toMatch(/GOOGLE_AUTH_MODE=enforced/);
    expect(googleAuthBanner('enforced')).toMatch(/enforced/);
    expect(googleAuthBanner('enforced')).not.toMatch(/no key needed/i);
  });
});

describe('a function started with no GOOGLE_AUTH_MODE at all', () => {
  let backend: Awaited<ReturnType<typeof startStateBackend>>;
  let limits: typeof Limits.handler;
  let api: typeof Api.handler;

  beforeAll(async () => {
    backend = await startStateBackend();
    useLocalEnv({ dynamodb: backend.endpoint, table: backend.table });
    delete process.env.GOOGLE_AUTH_MODE;
    limits = (await import('#functions/labels/limits.js')).handler;
    api = (await import('#functions/migration/api.js')).handler;
  });
  afterAll(() => backend?.close());

  it("answers anonymous and made-up credentials with 401 UNAUTHENTICATED in Google's format", async () => {
    const requests = [
      () => call(limits, { path: '/v2beta/limits/label', query: 'name=limits%2Flabel' }),
      () => call(limits, { path: '/v2beta/limits/label', query: 'name=limits%2Flabel&key=AIzaSyNotAKeyOfThisService' }),
      () => call(api, { path: '/v1/projects/p/locations', headers: { authorization: 'Bearer ya29.any-google-token' } }),
      () => call(api, { path: '/v1/projects/p/locations/us-central1/collectors', query: 'filter=displayName%3D%22*a*a*a*a*a*a*a*b%22' }),
      () =>
        call(api, {
          method: 'POST',
          path: '/v1/projects/p/locations/us-central1/collectors',
          query: 'collectorId=anonymous',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
    ];
    for (const request of requests) {
      const res = await request();
      expect(res.status, res.text).toBe(401);
      expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
      expect(res.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
      expect(res.json.error.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', domain: 'googleapis.com' });
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="/);
    }
  });
});
