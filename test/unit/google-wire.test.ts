import { describe, expect, it } from 'vitest';
import { ApiError } from '#lib/kernel/errors.js';
import { anyField, message, SCALAR } from '#lib/google/fields.js';
import { anyOf, googleJson, parseTimestampNanos, ProtoEnum, responseWire, timestamp, wireOf } from '#lib/google/wire.js';

const BODY = message('x.Body', { a: SCALAR, b: message('x.B', { c: SCALAR, d: SCALAR }), any: anyField(message('x.Y', { z: SCALAR })) });
const wire = (q: string, headers: Record<string, string> = {}) => responseWire(wireOf(new URLSearchParams(q), headers), BODY);

describe('system parameters', () => {
  it('reads $alt enum encoding, prettyPrint, fields and $.xgafv', () => {
    expect(wire('')).toEqual({ enums: 'name', pretty: true });
    expect(wire('$alt=json%3Benum-encoding=int').enums).toBe('int');
    expect(wire('$alt=json;enum-encoding=string').enums).toBe('name');
    expect(wire('alt=json&prettyPrint=false').pretty).toBe(false);
    expect(wire('$prettyPrint=0').pretty).toBe(false);
    expect(wire('fields=a,b(c)').fields?.get('b')).toBeInstanceOf(Map);
    expect(wire('fields=').fields).toBeUndefined();
    expect(wire('$.xgafv=2&key=k&quotaUser=q&access_token=t').enums).toBe('name');
  });

  it('reads the X-Goog-FieldMask header as the fields parameter', () => {
    const body = { a: 1, b: { c: 2, d: 3 } };
    const viaHeader = googleJson(wire('prettyPrint=false', { 'x-goog-fieldmask': 'b.c' }), body).body;
    expect(viaHeader).toBe('{"b":{"c":2}}');
    expect(googleJson(wire('prettyPrint=false&fields=b/c'), body).body).toBe(viaHeader);
    // The same selection twice is no conflict.
    expect(googleJson(wire('prettyPrint=false&fields=b.c', { 'x-goog-fieldmask': 'b.c' }), body).body).toBe(viaHeader);
  });

  it('refuses an unknown field or two different selections with INVALID_ARGUMENT naming them', () => {
    const refusal = (q: string, headers: Record<string, string> = {}) => {
      try {
        wire(q, headers);
      } catch (err) {
        return err as ApiError;
      }
      throw new Error(`${q} was accepted`);
    };
    const unknown = refusal('', { 'x-goog-fieldmask': 'a,nosuch' });
    expect(unknown.reason).toBe('INVALID_ARGUMENT');
    expect(unknown.message).toContain('Invalid field selection nosuch');
    expect(Object.keys(unknown.fields ?? {})).toEqual(['X-Goog-FieldMask']);
    const both = refusal('fields=a', { 'x-goog-fieldmask': 'b' });
    expect(both.reason).toBe('INVALID_ARGUMENT');
    expect(Object.keys(both.fields ?? {}).sort()).toEqual(['X-Goog-FieldMask', 'fields']);
    expect(Object.keys(refusal('fields=a&$fields=b').fields ?? {}).sort()).toEqual(['$fields', 'fields']);
  });

  it('refuses what it cannot serve with INVALID_ARGUMENT naming the parameter', () => {
    for (const [q, field] of [
      ['alt=proto', 'alt'],
      ['$alt=json%3Benum-encoding=bits', '$alt'],
      ['prettyPrint=maybe', 'prettyPrint'],
      ['$.xgafv=3', '$.xgafv'],
      ['fields=a(', 'fields'],
      ['fields=a.', 'fields'],
      ['$fields=nosuch', '$fields'],
      ['fields=b.nosuch', 'fields'],
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
