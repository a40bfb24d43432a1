import type { Logger } from '../kernel/log.js';
import type { ApiBase } from './api-base.js';

/** What a route's core sees: the request, parsed and validated, independent of the gateway. */
export interface HttpRequest<Body = unknown, Query = Record<string, string>, Params = Record<string, string>> {
  method: string;
  /** The raw path, without the query string. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  params: Params;
  query: Query;
  /** The query string as the gateway received it (signed URLs check their HMAC over it). */
  rawQuery?: string;
  /** Every query parameter in order, repeated keys included. */
  searchParams: URLSearchParams;
  body: Body;
  /** The unparsed body (base64-decoded), for routes that read non-JSON bodies. */
  rawBody: Buffer | undefined;
  requestId: string;
  /** `scheme://host` the client used, for absolute links. */
  baseUrl: string;
  /** The caller's address as the gateway saw it (`requestContext.http.sourceIp`), never a header. */
  sourceIp?: string;
  log: Logger;
  /** The file API's base the request came through (sandbox, region), set by fileApiRoute. */
  apiBase?: ApiBase;
  /** Set by the authentication middleware. */
  principal?: Principal;
}

export interface Principal {
  userId: number;
  keyId: string;
  scopes: string[];
  /** A sandbox credential (lib/file-api/sandbox): it works only at the sandbox base and sees only sandbox records. */
  sandbox: boolean;
  /** The account's fixed region as read when the credential was checked (null: none); absent when not read. */
  accountRegion?: string | null;
  /** What the bearer was (absent where a route's guard does not say): an API key or an OAuth access token. */
  kind?: 'api-key' | 'oauth';
  /** An access token's OAuth client. */
  clientId?: string;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  /** Serialized as JSON unless it is a string or Buffer. */
  body?: unknown;
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): HttpResponse => ({
  status,
  body,
  headers,
});

export const noContent = (): HttpResponse => ({ status: 204 });
