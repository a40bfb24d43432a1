/** Conversion between API Gateway HTTP API (payload 2.0) events and our request/response types. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import type { HttpResponse } from './types.js';
import { trimEnd } from '../kernel/text.js';

export function rawBodyOf(event: APIGatewayProxyEventV2): Buffer | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

export function headersOf(event: APIGatewayProxyEventV2): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  // Payload 2.0 moves cookies out of the headers.
  if (event.cookies?.length) out.cookie = event.cookies.join('; ');
  return out;
}

/** The Lambda invocation id: unique per request in the cloud and under serverless-offline alike. */
export function requestIdOf(context: { awsRequestId?: string }): string {
  return context.awsRequestId || randomUUID();
}

export function baseUrlOf(event: APIGatewayProxyEventV2, headers: Record<string, string>, configured?: string): string {
  if (configured) return trimEnd(configured, '/');
  const host = headers['x-forwarded-host'] ?? headers.host ?? event.requestContext?.domainName ?? 'localhost';
  const proto = headers['x-forwarded-proto'] ?? (/^(localhost|127\.|\[::1\])/.test(host) ? 'http' : 'https');
  return `${proto}://${host}`;
}

export function toGatewayResult(res: HttpResponse): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = { ...res.headers };
  if (res.body === undefined || res.status === 204) {
    // The gateway would label an empty answer application/json, and clients such as the cloudconvert
    // SDK then try to parse it: name it as what it is.
    headers['content-type'] ??= 'text/plain; charset=utf-8';
    return { statusCode: res.status, headers, body: '' };
  }
  if (Buffer.isBuffer(res.body)) {
    return { statusCode: res.status, headers, body: res.body.toString('base64'), isBase64Encoded: true };
  }
  if (typeof res.body === 'string') return { statusCode: res.status, headers, body: res.body };
  headers['content-type'] ??= 'application/json';
  return { statusCode: res.status, headers, body: JSON.stringify(res.body) };
}
