/**
 * The scopes an OAuth client may ask for: every scope an API key can hold (lib/access/auth/scopes.ts), each
 * with the words the consent page shows. A request's `scope` is space-separated (RFC 6749 §3.3); the
 * Google scopes may be written in full or without their `https://www.googleapis.com/auth/` prefix.
 */
import { GOOGLE_SCOPE_BASE, SCOPES, isScope, type Scope } from '../auth/scopes.js';

export const SCOPE_WORDS: Record<Scope, string> = {
  'user.read': 'See your account: name, e-mail, remaining credits and usage',
  'user.write': 'Change your account’s name and e-mail address, and make and revoke its API keys',
  'task.read': 'See your jobs and tasks and download their results',
  'task.write': 'Create, cancel, retry and delete jobs and tasks (spending your credits)',
  'webhook.read': 'See your webhook settings',
  'webhook.write': 'Create and delete webhooks',
  'https://www.googleapis.com/auth/drive.labels': 'Use the label limits API',
  'https://www.googleapis.com/auth/drive.labels.readonly': 'Read label limits',
  'https://www.googleapis.com/auth/drive.admin.labels': 'Use the label limits API as an administrator',
  'https://www.googleapis.com/auth/drive.admin.labels.readonly': 'Read label limits as an administrator',
  'https://www.googleapis.com/auth/cloud-platform': 'Use the migration assessment API: collectors, annotations and operations',
};

export type ScopeParse = { ok: true; scopes: Scope[] } | { ok: false; unknown: string[] };

/**
 * The scopes of a `scope` parameter, deduplicated, in the order of SCOPES. Unknown names are listed
 * (the caller answers `invalid_scope`); an absent or empty parameter gives no scopes.
 */
export function parseScopeParam(value: string | undefined): ScopeParse {
  const names = (value ?? '').split(' ').filter(Boolean);
  const unknown: string[] = [];
  const found = new Set<Scope>();
  for (const name of names) {
    const full = isScope(name) ? name : GOOGLE_SCOPE_BASE + name;
    if (isScope(full)) found.add(full);
    else unknown.push(name);
  }
  if (unknown.length) return { ok: false, unknown };
  return { ok: true, scopes: SCOPES.filter((s) => found.has(s)) };
}

/** A short name for a scope: the Google ones without their URL prefix. */
export const shortScope = (scope: string): string => (scope.startsWith(GOOGLE_SCOPE_BASE) ? scope.slice(GOOGLE_SCOPE_BASE.length) : scope);
