import { describe, expect, it } from 'vitest';
import { apiBaseOf, apiUrlOf, LIVE_BASE } from '#lib/http/api-base.js';
import { parseConfig } from '#lib/kernel/config.js';
import { unmatched } from '../../functions/fallback/not-found.js';

const minimal = { STATE_TABLE: 't', FILES_BUCKET: 'b', IMPORT_QUEUE: 'i', PROCESS_QUEUE: 'p', EXPORT_QUEUE: 'e', OPERATIONS_QUEUE: 'o', WEBHOOKS_QUEUE: 'w' };
const REGIONS = ['eu-central', 'us-east'];

describe('the file API bases', () => {
  it('tells the plain, sandbox and regional bases apart by the prefix the gateway matched', () => {
    expect(apiBaseOf(undefined, REGIONS)).toEqual(LIVE_BASE);
    expect(apiBaseOf('sandbox', REGIONS)).toEqual({ prefix: '/sandbox', sandbox: true });
    expect(apiBaseOf('eu-central', REGIONS)).toEqual({ prefix: '/eu-central', sandbox: false, region: 'eu-central' });
    expect(apiBaseOf('us-east', REGIONS)).toEqual({ prefix: '/us-east', sandbox: false, region: 'us-east' });
  });

  it('knows no other prefix, not even the paths a greedy route could match', () => {
    for (const other of ['sync', 'v2', 'v1', 'EU-CENTRAL', 'eu-central ', '', 'ap-south', '..']) {
      expect(apiBaseOf(other, REGIONS), other).toBeUndefined();
    }
  });

  it('points links.self under the base the request came through', () => {
    expect(apiUrlOf({ baseUrl: 'https://files.example', apiBase: { prefix: '/sandbox', sandbox: true } })).toBe('https://files.example/sandbox');
    expect(apiUrlOf({ baseUrl: 'https://files.example', apiBase: LIVE_BASE })).toBe('https://files.example');
    expect(apiUrlOf({ baseUrl: 'https://files.example' })).toBe('https://files.example');
  });

  it('takes the region list from REGIONS, refusing names that are paths of the service', () => {
    expect(parseConfig(minimal).REGIONS).toEqual(['eu-central', 'us-east']);
    expect(parseConfig({ ...minimal, REGIONS: 'eu-central, ap-south,eu-central' }).REGIONS).toEqual(['eu-central', 'ap-south']);
    for (const bad of ['sandbox', 'sync', 'v2', 'graphql', 'EU', 'eu central', '-x', '']) {
      expect(() => parseConfig({ ...minimal, REGIONS: bad }), bad).toThrow('REGIONS');
    }
  });

  it('answers a known prefixed path with another method with 405, like the plain one', () => {
    const err = unmatched('PUT', '/eu-central/v2/jobs');
    expect(err.reason).toBe('METHOD_NOT_ALLOWED');
    expect(err.headers?.allow).toBe('POST, GET');
  });
});

describe("the SDK's hosts, mapped to the bases (test/support/cloudconvert.ts, as the README shows)", () => {
  it('maps every host the SDK builds', async () => {
    const { localBase } = await import('../support/cloudconvert.js');
    const here = 'http://localhost:4000';
    expect(localBase('https://api.cloudconvert.com/v2/', here)).toBe(`${here}/v2/`);
    expect(localBase('https://sync.api.cloudconvert.com/v2/', here)).toBe(`${here}/sync/v2/`);
    expect(localBase('https://api.sandbox.cloudconvert.com/v2/', here)).toBe(`${here}/sandbox/v2/`);
    expect(localBase('https://sync.api.sandbox.cloudconvert.com/v2/', here)).toBe(`${here}/sandbox/sync/v2/`);
    expect(localBase('https://eu-central.api.cloudconvert.com/v2/', here)).toBe(`${here}/eu-central/v2/`);
    expect(localBase('https://us-east.sync.api.cloudconvert.com/v2/', here)).toBe(`${here}/us-east/sync/v2/`);
  });
});
