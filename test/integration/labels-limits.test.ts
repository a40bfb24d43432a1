/** GET /v2beta/limits/label in-process, with the standard system parameters. */
import { beforeAll, describe, expect, it } from 'vitest';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';
import type * as Limits from '#functions/labels/limits.js';
import { LABEL_LIMITS } from '#lib/google/label-limits.js';

let handler: typeof Limits.handler;

beforeAll(async () => {
  // Open authentication: no state store is touched.
  useLocalEnv({ dynamodb: 'http://127.0.0.1:9' });
  handler = (await import('#functions/labels/limits.js')).handler;
});

const get = (query?: string, headers: Record<string, string> = {}) => call(handler, { path: '/v2beta/limits/label', query, headers });

describe('label limits', () => {
  it('returns the LabelLimits resource as the discovery client asks for it', async () => {
    const res = await get('name=limits%2Flabel', { authorization: 'Bearer test-token', 'x-goog-api-client': 'gdcl/8.0.0 gl-node/20.20.2' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(res.json).toEqual(LABEL_LIMITS);
    expect(res.json.fieldLimits.integerLimits).toEqual({ minValue: '-9007199254740991', maxValue: '9007199254740991' });
    expect(res.json.fieldLimits.dateLimits.maxValue).toEqual({ year: 9999, month: 12, day: 31 });
    // Google pretty-prints unless told otherwise.
    expect(res.text).toContain('\n  "maxFields": 10');
  });

  it('accepts the system parameters: fields, prettyPrint, key, $.xgafv, alt, quotaUser', async () => {
    const res = await get('name=limits%2Flabel&fields=maxFields%2CfieldLimits(maxIdLength%2CintegerLimits)&prettyPrint=false&quotaUser=q&key=k&%24.xgafv=2&alt=json');
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"maxFields":10,"fieldLimits":{"maxIdLength":64,"integerLimits":{"minValue":"-9007199254740991","maxValue":"9007199254740991"}}}');
    expect((await get('name=limits/label&$alt=json%3Benum-encoding=int')).status).toBe(200);
  });

  it('answers a missing or wrong name with 400 INVALID_ARGUMENT and a field violation', async () => {
    for (const query of [undefined, 'name=', 'name=limits%2Fother', 'name=labels%2Fabc']) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(res.json.error.details).toEqual([
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'name', description: expect.stringContaining('limits/label') }] },
      ]);
    }
  });

  it('answers unsupported system parameter values with 400', async () => {
    for (const query of ['name=limits/label&alt=media', 'name=limits/label&fields=a(', 'name=limits/label&prettyPrint=yes-please']) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.json.error.status).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('label limits partial responses', () => {
  it('reads dot paths, * and the X-Goog-FieldMask header', async () => {
    const dots = await get('name=limits/label&prettyPrint=false&fields=maxFields,fieldLimits.integerLimits.maxValue');
    expect(dots.text).toBe('{"maxFields":10,"fieldLimits":{"integerLimits":{"maxValue":"9007199254740991"}}}');
    const header = await get('name=limits/label&prettyPrint=false', { 'x-goog-fieldmask': 'maxFields, fieldLimits(integerLimits/maxValue)' });
    expect(header.text).toBe(dots.text);
    // Below *, scalars (which have no maxLength) drop out and sub-messages keep what they hold of it.
    const star = await get('name=limits/label&fields=fieldLimits.*.maxLength');
    expect(star.json).toEqual({
      fieldLimits: { textLimits: { maxLength: 1000 }, longTextLimits: { maxLength: 10000 }, integerLimits: {}, dateLimits: {}, userLimits: {}, selectionLimits: {} },
    });
    const deeper = await get('name=limits/label&fields=fieldLimits.*.listLimits.maxEntries');
    expect(deeper.json).toEqual({
      fieldLimits: {
        userLimits: { listLimits: { maxEntries: 20 } },
        selectionLimits: { listLimits: { maxEntries: 20 } },
        ...{ textLimits: {}, longTextLimits: {}, integerLimits: {}, dateLimits: {} },
      },
    });
  });

  it('refuses a field LabelLimits does not have with INVALID_ARGUMENT naming it', async () => {
    for (const [query, headers, param, field] of [
      ['fields=nosuch', {}, 'fields', 'nosuch'],
      ['fields=fieldLimits.textLimits.maxValue', {}, 'fields', 'fieldLimits.textLimits.maxValue'],
      ['fields=fieldLimits.*.maxEntries', {}, 'fields', 'fieldLimits.*.maxEntries'],
      ['', { 'x-goog-fieldmask': 'maxFields,fieldLimits(nosuch)' }, 'X-Goog-FieldMask', 'fieldLimits.nosuch'],
    ] as const) {
      const res = await get(`name=limits/label&${query}`, headers);
      expect(res.status, query).toBe(400);
      expect(res.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining(`Invalid field selection ${field}`) });
      expect(res.json.error.details[0].fieldViolations[0].field).toBe(param);
    }
  });
});
