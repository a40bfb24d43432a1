/**
 * The proto3 JSON wire conventions of Google's REST APIs (the parts both Google dialects share):
 * standard system parameters (`$alt`, `alt`, `fields`, `prettyPrint`, `$.xgafv`, …), enums as names
 * or numbers, RFC 3339 timestamps, int64 as strings, `Any` with its `@type`, and the response body
 * (partial responses, pretty printing, `application/json; charset=UTF-8`).
 */
import { ApiError } from '../kernel/errors.js';
import type { HttpResponse } from '../http/types.js';
import { checkFieldSelection, parseFieldSelection, selectFields, UnknownFieldError, type FieldSelection, type MessageType } from './fields.js';

export type EnumEncoding = 'name' | 'int';

/** What the standard parameters of one request ask of its response, once checked against the response type. */
export interface Wire {
  /** `$alt=json;enum-encoding=int` (what GAPIC REST clients send) asks for enum numbers. */
  enums: EnumEncoding;
  /** `fields` / `$fields` / `X-Goog-FieldMask`: a partial response. */
  fields?: FieldSelection;
  /** `prettyPrint` / `$prettyPrint`: Google's default is true. */
  pretty: boolean;
}

/** A field mask as the request gave it: where from (for errors) and what it selects, not yet checked. */
export interface RequestedMask {
  from: string;
  text: string;
  selection: FieldSelection;
}

/**
 * The system parameters of a request before its method is known. Its mask becomes a Wire's `fields`
 * only through `responseWire`, which checks it against the method's response message; `googleJson`
 * takes a Wire, so no method can answer with an unchecked mask.
 */
export interface RequestWire extends Omit<Wire, 'fields'> {
  mask?: RequestedMask;
}

/** The system parameters every Google API method accepts besides its own (AIP-4 / discovery `parameters`). */
export const SYSTEM_PARAMS: ReadonlySet<string> = new Set([
  '$alt',
  'alt',
  '$fields',
  'fields',
  '$prettyPrint',
  'prettyPrint',
  'key',
  'access_token',
  'oauth_token',
  'quotaUser',
  '$.xgafv',
  'callback',
  'uploadType',
  'upload_protocol',
  '$callback',
  'upload_type',
]);

const bad = (param: string, message: string) => new ApiError('INVALID_ARGUMENT', message, { fields: { [param]: [message] } });

function boolParam(param: string, value: string): boolean {
  if (/^(true|1)$/i.test(value)) return true;
  if (/^(false|0)$/i.test(value)) return false;
  throw bad(param, `Invalid value "${value}" for ${param}; use true or false.`);
}

/** The header that carries the same selection as `fields` (Google's system parameter table). */
export const FIELD_MASK_HEADER = 'X-Goog-FieldMask';

/**
 * The field mask of a request: `fields`, `$fields` or the `X-Goog-FieldMask` header. An empty value
 * asks for everything. Google leaves the case of two sources to each implementation (SystemParameter:
 * "the behavior is implementation-dependent"); picking one silently would answer fields the caller did
 * not ask for, so two different selections are refused, naming both (the same text twice is accepted).
 */
function requestedMask(params: URLSearchParams, headers: Record<string, string>): RequestedMask | undefined {
  const given: Array<{ from: string; text: string }> = [];
  for (const param of ['fields', '$fields'] as const) {
    const text = params.get(param);
    if (text !== null && text.trim() !== '') given.push({ from: param, text });
  }
  const header = headers[FIELD_MASK_HEADER.toLowerCase()];
  if (header !== undefined && header.trim() !== '') given.push({ from: FIELD_MASK_HEADER, text: header });
  const [first] = given;
  if (!first) return undefined;
  const others = given.filter((g) => g.text.trim() !== first.text.trim());
  if (others.length) {
    const message = `Give one field mask: ${[first, ...others].map((g) => `${g.from} "${g.text}"`).join(' and ')} differ.`;
    throw new ApiError('INVALID_ARGUMENT', message, { fields: Object.fromEntries([first, ...others].map((g) => [g.from, ['conflicts with another field mask of the request']])) });
  }
  try {
    return { from: first.from, text: first.text, selection: parseFieldSelection(first.text) };
  } catch (err) {
    throw new ApiError('INVALID_ARGUMENT', `Invalid field selection "${first.text}".`, { fields: { [first.from]: [(err as Error).message] } });
  }
}

/** Reads and checks the system parameters of a request (headers with lower-cased names). */
export function wireOf(params: URLSearchParams, headers: Record<string, string> = {}): RequestWire {
  let enums: EnumEncoding = 'name';
  for (const param of ['alt', '$alt'] as const) {
    const value = params.get(param);
    if (value === null) continue;
    // `json`, optionally followed by `;enum-encoding=int|string` (URL-decoded from `json%3Benum-encoding=int`).
    const [format = '', ...options] = value.split(';').map((s) => s.trim());
    if (format.toLowerCase() !== 'json') {
      throw bad(param, `Unsupported response format "${value}" for ${param}; only json is served.`);
    }
    for (const option of options) {
      const match = /^enum-encoding=(int|string)$/i.exec(option);
      if (!match) throw bad(param, `Unsupported option "${option}" for ${param}; use enum-encoding=int.`);
      enums = match[1]!.toLowerCase() === 'int' ? 'int' : 'name';
    }
  }
  let pretty = true;
  for (const param of ['prettyPrint', '$prettyPrint'] as const) {
    const value = params.get(param);
    if (value !== null) pretty = boolParam(param, value);
  }
  const xgafv = params.get('$.xgafv');
  if (xgafv !== null && xgafv !== '1' && xgafv !== '2') throw bad('$.xgafv', `Invalid value "${xgafv}" for $.xgafv; use 1 or 2.`);
  return { enums, pretty, mask: requestedMask(params, headers) };
}

/**
 * The wire of a method's answer: the request's mask checked against the response message type
 * (Google's own check: an unknown field is "Invalid field selection <field>", whatever the answer
 * holds). Methods call it before they act, so a refused mask changes nothing.
 */
export function responseWire({ mask, ...wire }: RequestWire, response: MessageType): Wire {
  if (!mask) return wire;
  try {
    checkFieldSelection(mask.selection, response);
  } catch (err) {
    if (!(err instanceof UnknownFieldError)) throw err;
    throw new ApiError('INVALID_ARGUMENT', `Invalid field selection ${err.path}.`, { fields: { [mask.from]: [err.message] } });
  }
  return { ...wire, fields: mask.selection };
}

/**
 * Reads a request parameter that may be given in lowerCamelCase (what clients send) or snake_case
 * (which Google also accepts). Only the first value counts.
 */
export function param(params: URLSearchParams, camel: string): string | undefined {
  const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return params.get(camel) ?? params.get(snake) ?? undefined;
}

/** A 200 JSON answer shaped by the request's system parameters. */
export function googleJson(wire: Wire, body: unknown, status = 200): HttpResponse {
  const shaped = wire.fields ? selectFields(body, wire.fields) : body;
  return {
    status,
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: wire.pretty ? JSON.stringify(shaped, null, 2) + '\n' : JSON.stringify(shaped),
  };
}

/** RFC 3339 in UTC with a `Z` and millisecond precision, as google.protobuf.Timestamp is written. */
export function timestamp(date: Date | string | number): string {
  return new Date(date).toISOString();
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Nanoseconds since the epoch of an RFC 3339 string, or undefined when it is not one. */
export function parseTimestampNanos(value: string): bigint | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return undefined;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    offsetMinutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  }
  const nanos = BigInt(frac.padEnd(9, '0') || '0');
  return (BigInt(ms) - BigInt(offsetMinutes) * 60_000n) * 1_000_000n + nanos;
}

/** A protobuf enum: value names in number order (proto3 enums here are dense from 0). */
export class ProtoEnum<const N extends string = string> {
  readonly names: readonly N[];

  constructor(
    /** Full proto name, for messages. */
    readonly typeName: string,
    names: readonly N[],
  ) {
    this.names = names;
  }

  get unspecified(): N {
    return this.names[0]!;
  }

  numberOf(name: N): number {
    return this.names.indexOf(name);
  }

  /** Accepts a name or a number (as JSON number or numeric string); undefined when it is neither. */
  parse(input: unknown): N | undefined {
    if (typeof input === 'number' && Number.isInteger(input)) return this.names[input];
    if (typeof input === 'string') {
      if (/^\d+$/.test(input)) return this.names[Number(input)];
      return (this.names as readonly string[]).includes(input) ? (input as N) : undefined;
    }
    return undefined;
  }

  encode(name: N, enc: EnumEncoding): string | number {
    return enc === 'int' ? this.numberOf(name) : name;
  }
}

/** `google.protobuf.Any` of a message: its fields plus `@type`. */
export const anyOf = (typeName: string, message: Record<string, unknown>): Record<string, unknown> => ({
  '@type': `type.googleapis.com/${typeName}`,
  ...message,
});

/** Drops `undefined` entries so that unset fields are left out rather than written as null. */
export function compact<T extends Record<string, unknown>>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}
