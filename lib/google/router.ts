/**
 * HTTP rules of google.api.http, matched in code: a greedy gateway route (`/v1/{proxy+}`) hands every
 * request to one function, which finds the method by HTTP verb and path template, as API Gateway
 * route templates cannot express `:verb` suffixes or multi-segment names.
 *
 * A template is the path with `*` for one captured segment and an optional `:verb` on the last one
 * (`v1/projects/* /locations/* /collectors/*:pause`). Captured segments are URL-decoded.
 */
import { ApiError } from '../kernel/errors.js';
import type { HttpResponse } from '../http/types.js';
import type { MessageType } from './fields.js';

export interface HttpRule<C> {
  /** The RPC name, e.g. `CreateCollector`. */
  id: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  template: string;
  /** The response message, which the request's partial response (`fields`) is checked against first. */
  response: MessageType;
  run: (vars: string[], ctx: C) => Promise<HttpResponse>;
}

interface Compiled<C> {
  rule: HttpRule<C>;
  segments: string[];
  verb?: string;
}

function split(path: string): { segments: string[]; verb?: string } {
  const segments = path.replace(/^\/+/, '').split('/');
  const last = segments[segments.length - 1] ?? '';
  const colon = last.lastIndexOf(':');
  if (colon > 0) {
    segments[segments.length - 1] = last.slice(0, colon);
    return { segments, verb: last.slice(colon + 1) };
  }
  return { segments };
}

export interface Router<C> {
  /** The rule for a request and its captured segments; 404 NOT_FOUND or 405 with `Allow` otherwise. */
  match(method: string, path: string): { rule: HttpRule<C>; vars: string[] };
  rules: ReadonlyArray<HttpRule<C>>;
}

export function createRouter<C>(rules: ReadonlyArray<HttpRule<C>>): Router<C> {
  const compiled: Compiled<C>[] = [];
  const seen = new Set<string>();
  for (const rule of rules) {
    const key = `${rule.method} ${rule.template}`;
    if (seen.has(rule.id) || seen.has(key)) throw new Error(`duplicate HTTP rule ${rule.id} (${key})`);
    seen.add(rule.id).add(key);
    compiled.push({ rule, ...split(rule.template) });
  }

  const capture = (c: Compiled<C>, segments: string[], verb: string | undefined): string[] | undefined => {
    if (c.segments.length !== segments.length || c.verb !== verb) return undefined;
    const vars: string[] = [];
    for (let i = 0; i < segments.length; i++) {
      const want = c.segments[i]!;
      const have = segments[i]!;
      if (want === '*') {
        if (!have) return undefined;
        vars.push(have);
      } else if (want !== have) return undefined;
    }
    return vars;
  };

  return {
    rules,
    match(method, path) {
      const { segments, verb } = split(path);
      const allowed: string[] = [];
      for (const c of compiled) {
        const vars = capture(c, segments, verb);
        if (!vars) continue;
        if (c.rule.method !== method.toUpperCase()) {
          allowed.push(c.rule.method);
          continue;
        }
        try {
          return { rule: c.rule, vars: vars.map((v) => decodeURIComponent(v)) };
        } catch {
          throw new ApiError('INVALID_ARGUMENT', `The path ${path} holds a malformed percent-encoding.`);
        }
      }
      if (allowed.length) {
        throw new ApiError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}; use ${allowed.join(', ')}.`, { headers: { allow: allowed.join(', ') } });
      }
      throw new ApiError('NOT_FOUND', `The requested URL ${path} was not found on this server.`);
    },
  };
}
