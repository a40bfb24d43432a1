/**
 * The API at its sandbox base (/sandbox/v2), for what is served there only (the sandbox whitelist):
 * the same session asks POST /console/token?base=sandbox for a token of the console's sandbox client
 * (the user's rights, sandbox only), kept apart from the live token of api.ts.
 */
import { ApiError, currentConfig } from './api';

let held: { value: string; until: number } | undefined;

async function sandboxToken(renew: boolean): Promise<string> {
  if (!renew && held && held.until > Date.now()) return held.value;
  const res = await fetch('/console/token?base=sandbox', { method: 'POST', headers: { 'x-csrf-token': currentConfig().csrf }, credentials: 'same-origin' });
  if (!res.ok) throw new ApiError(res.status, `The console could not get a sandbox token (${res.status}).`);
  const body = (await res.json()) as { access_token: string; expires_in: number };
  held = { value: body.access_token, until: Date.now() + (body.expires_in - 30) * 1000 };
  return held.value;
}

/** `path` after the base, e.g. `/v2/users/me/sandbox/files`; the answer's `data` (undefined for 204). */
export async function sandboxData<T>(method: string, path: string, body?: unknown): Promise<T> {
  const attempt = async (renew: boolean) =>
    fetch(`/sandbox${path}`, {
      method,
      headers: { authorization: `Bearer ${await sandboxToken(renew)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  let res = await attempt(false);
  if (res.status === 401) res = await attempt(true);
  const text = await res.text();
  const parsed = text ? (JSON.parse(text) as { data?: T; message?: string; code?: string; errors?: Record<string, string[]> }) : {};
  if (!res.ok) throw new ApiError(res.status, parsed.message ?? `${res.status} ${res.statusText}`, parsed.code, parsed.errors);
  return parsed.data as T;
}
