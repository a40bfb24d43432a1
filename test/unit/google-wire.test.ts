import { describe, expect, it } from 'vitest';
import { ApiError } from '#lib/kernel/errors.js';
import { anyOf, googleJson, parseTimestampNanos, ProtoEnum, timestamp, wireOf } from '#lib/google/wire.js';

const wire = (q: string) => wireOf(new URLSearchParams(q));

describe('system parameters', () => {
  it('reads $alt enum encoding, prettyPrint, fields and $.xgafv', () => {
    expect(wire('')).toMatchObject({ enums: 'name', pretty: true, fields: undefined });
    expect(wire('$alt=json%3Benum-encoding=int').enums).toBe('int');
    expect(wire('$alt=json;enum-encoding=string').enums).toBe('name');
    expect(wire('alt=json&prettyPrint=false').pretty).toBe(false);
    expect(wire('$prettyPrint=0').pretty).toBe(false);
    expect(wire('fields=a,b(c)').fields?.get('b')).toBeInstanceOf(Map);
    expect(wire('$.xgafv=2&key=k&quotaUser=q&access_token=t').enums).toBe('name');
  });

  it('refuses what it cannot serve with INVALID_ARGUMENT naming the parameter', () => {
    for (const [q, field] of [
      ['alt=proto', 'alt'],
      ['$alt=json%3Benum-encoding=bits', '$alt'],
      ['prettyPrint=maybe', 'prettyPrint'],
      ['$.xgafv=3', '$.xgafv'],
      ['fields=a(', 'fields'],
    ] as const) {
      try {
        wire(q);
        throw new Error(`${q} was accepted`);
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).reason).toBe('INVALID_ARGUMENT');
        expect(Object.keys((err as ApiError).fields ?? {})).toEqual([field]);
      }
    }
  });
});

describe('wire values', () => {
  it('writes timestamps as RFC 3339 UTC with Z and parses offsets and nanoseconds', () => {
    expect(timestamp(Date.UTC(2024, 4, 1, 12, 0, 0, 123))).toBe('2024-05-01T12:00:00.123Z');
    expect(parseTimestampNanos('2024-05-01T12:00:00Z')).toBe(BigInt(Date.UTC(2024, 4, 1, 12)) * 1_000_000n);
    expect(parseTimestampNanos('2024-05-01T14:00:00.000000001+02:00')).toBe(BigInt(Date.UTC(2024, 4, 1, 12)) * 1_000_000n + 1n);
    expect(parseTimestampNanos('2024-13-01T00:00:00Z')).toBeUndefined();
    expect(parseTimestampNanos('yesterday')).toBeUndefined();
  });

  it('reads enums as names or numbers and writes either', () => {
    const e = new ProtoEnum('x.State', ['STATE_UNSPECIFIED', 'STATE_ON']);
    expect(e.parse('STATE_ON')).toBe('STATE_ON');
    expect(e.parse(1)).toBe('STATE_ON');
    expect(e.parse('1')).toBe('STATE_ON');
    expect(e.parse(7)).toBeUndefined();
    expect(e.parse('STATE_OFF')).toBeUndefined();
    expect(e.encode('STATE_ON', 'int')).toBe(1);
    expect(e.encode('STATE_ON', 'name')).toBe('STATE_ON');
  });

  it('answers JSON in UTF-8, pretty by default, shaped by fields', () => {
    const body = { a: 1, b: { c: 2, d: 3 }, any: anyOf('x.Y', { z: 1 }) };
    const pretty = googleJson(wire(''), body);
    expect(pretty.headers).toEqual({ 'content-type': 'application/json; charset=UTF-8' });
    expect(pretty.body).toBe(JSON.stringify(body, null, 2) + '\n');
    expect(googleJson(wire('prettyPrint=false&fields=b/c,any'), body).body).toBe('{"b":{"c":2},"any":{"@type":"type.googleapis.com/x.Y","z":1}}');
  });
});
