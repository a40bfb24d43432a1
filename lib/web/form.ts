/** `application/x-www-form-urlencoded` bodies: what HTML forms and OAuth token requests send. */
import { ApiError } from '../kernel/errors.js';
import type { HttpRequest } from '../http/types.js';

/** Form posts here are a few fields; anything larger is refused before parsing. */
export const MAX_FORM_BYTES = 64 * 1024;

export function isFormPost(req: Pick<HttpRequest, 'headers'>): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/x-www-form-urlencoded';
}

/** The posted form's fields; 415 for another content type, 413 past MAX_FORM_BYTES. */
export function formOf(req: Pick<HttpRequest, 'headers' | 'rawBody'>): URLSearchParams {
  if (!isFormPost(req)) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  const body = req.rawBody ?? Buffer.alloc(0);
  if (body.length > MAX_FORM_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE', `The form is larger than ${MAX_FORM_BYTES} bytes.`);
  return new URLSearchParams(body.toString('utf8'));
}

/** Names given more than once (RFC 6749 §3.1, §3.2: OAuth parameters must not repeat). */
export function repeatedNames(params: URLSearchParams, names: readonly string[]): string[] {
  return names.filter((name) => params.getAll(name).length > 1);
}

/** The parameters as one value each (first wins), for the names asked for. */
export function single<K extends string>(params: URLSearchParams, names: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const name of names) {
    const value = params.get(name);
    if (value !== null && value !== '') out[name] = value;
  }
  return out;
}
