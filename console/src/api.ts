/**
 * The public API as the signed-in user: every call carries an OAuth access token that
 * POST /console/token issues to this browser's session (the user's own rights, nothing more), fetched
 * again when it runs out or is refused. Errors come back as ApiError with the API's own message, code
 * and per-field errors.
 */
import type { ConsoleConfig } from './config';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly errors?: Record<string, string[]>,
  ) {
    super(message);
  }
}

let config: ConsoleConfig;
let token: { value: string; until: number } | undefined;
let pending: Promise<string> | undefined;

export function useConfig(c: ConsoleConfig): void {
  config = c;
}
export const currentConfig = () => config;

async function fetchToken(): Promise<string> {
  const res = await fetch('/console/token', { method: 'POST', headers: { 'x-csrf-token': config.csrf }, credentials: 'same-origin' });
  if (res.status === 401 || res.status === 403) {
    // The session ended (signed out elsewhere, expired): start again at the sign-in.
    window.location.assign('/console');
    throw new ApiError(res.status, 'Your session has ended; sign in again.');
  }
  if (!res.ok) throw new ApiError(res.status, `The console could not get a token (${res.status}).`);
  const body = (await res.json()) as { access_token: string; expires_in: number };
  token = { value: body.access_token, until: Date.now() + (body.expires_in - 30) * 1000 };
  return token.value;
}

/** A valid access token of the session (shared by concurrent callers). */
export function accessToken(renew = false): Promise<string> {
  if (!renew && token && token.until > Date.now()) return Promise.resolve(token.value);
  pending ??= fetchToken().finally(() => (pending = undefined));
  return pending;
}

async function errorOf(res: Response): Promise<ApiError> {
  let body: { message?: string; code?: string; errors?: Record<string, string[]> } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // not JSON: the status says enough
  }
  return new ApiError(res.status, body.message ?? `${res.status} ${res.statusText}`, body.code, body.errors);
}

/** Calls the API (`path` from the service root, e.g. `/v2/jobs`); returns the parsed JSON (undefined for 204). */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const send = async (renew: boolean) =>
    fetch(path, {
      method,
      headers: { authorization: `Bearer ${await accessToken(renew)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  let res = await send(false);
  if (res.status === 401) res = await send(true);
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** The `data` of a CloudConvert-style answer. */
export async function apiData<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await api<{ data: T }>(method, path, body)).data;
}

/**
 * Sends a file with an import/upload task's form (a presigned storage POST), reporting progress from
 * 0 to 1. XMLHttpRequest, because fetch reports no upload progress.
 */
export function uploadWithForm(form: { url: string; parameters: Record<string, string> }, file: File, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(form.parameters)) data.append(name, value);
    data.append('file', file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', form.url);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => (xhr.status < 300 ? resolve() : reject(new ApiError(xhr.status, `The upload was refused (${xhr.status}).`)));
    xhr.onerror = () => reject(new ApiError(0, 'The upload did not reach the storage.'));
    xhr.send(data);
  });
}

/** Ends the session (and the console's tokens); the page then shows the sign-in. */
export async function signOut(): Promise<void> {
  await fetch('/console/sign-out', { method: 'POST', headers: { 'x-csrf-token': config.csrf }, credentials: 'same-origin' });
  window.location.assign('/console');
}
