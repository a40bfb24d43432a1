/**
 * The Account page's API keys (components/account-keys.tsx), the parts without a DOM: the key as
 * GET /v2/users/me/api-keys shows it, the scopes a key made here may hold, and what a refusal says
 * about which field. The console's token holds the file API's scopes, so those are the choices; the
 * words are the consent page's (lib/access/oauth/scopes.ts SCOPE_WORDS; a unit test keeps them equal).
 */
export interface ApiKeyView {
  id: string;
  name: string;
  scopes: string[];
  sandbox: boolean;
  created_at: string;
  revoked_at: string | null;
}

/** POST /v2/users/me/api-keys's answer: the record and, this once, the secret. */
export interface CreatedKey extends ApiKeyView {
  key: string;
}

export const KEYS_PATH = '/v2/users/me/api-keys';

export const SCOPE_CHOICES: ReadonlyArray<{ scope: string; words: string }> = [
  { scope: 'user.read', words: 'See your account: name, e-mail, remaining credits and usage' },
  { scope: 'user.write', words: 'Change your account’s name and e-mail address, and make and revoke its API keys' },
  { scope: 'task.read', words: 'See your jobs and tasks and download their results' },
  { scope: 'task.write', words: 'Create, cancel, retry and delete jobs and tasks (spending your credits)' },
  { scope: 'webhook.read', words: 'See your webhook settings' },
  { scope: 'webhook.write', words: 'Create and delete webhooks' },
];

/** The form's fields the API may name in a 422; anything else is said above the form. */
export const KEY_FIELDS = ['name', 'scopes', 'sandbox'] as const;
export type KeyField = (typeof KEY_FIELDS)[number];

export interface KeyFormErrors {
  fields: Partial<Record<KeyField, string>>;
  /** What belongs to no field: the key limit, a refusal, a failure. */
  general?: string;
}

/** A refusal of the creation, split into the fields it names and the rest. */
export function keyFormErrors(err: { message: string; errors?: Record<string, string[]> }): KeyFormErrors {
  const fields: KeyFormErrors['fields'] = {};
  const rest: string[] = [];
  for (const [field, messages] of Object.entries(err.errors ?? {})) {
    const text = messages.join(' ');
    if ((KEY_FIELDS as readonly string[]).includes(field)) fields[field as KeyField] = text;
    else rest.push(text);
  }
  const general = rest.length ? rest.join(' ') : Object.keys(fields).length ? undefined : err.message;
  return general === undefined ? { fields } : { fields, general };
}

/** The table's order: live keys first, each group newest first (the API lists newest first). */
export function keyRows(keys: readonly ApiKeyView[]): ApiKeyView[] {
  return [...keys].sort((a, b) => Number(a.revoked_at !== null) - Number(b.revoked_at !== null) || b.created_at.localeCompare(a.created_at));
}

/** The body of a creation from the form's state: the chosen scopes in the list's order. */
export function newKeyBody(name: string, chosen: ReadonlySet<string>, sandbox: boolean): { name: string; scopes: string[]; sandbox?: true } {
  const scopes = SCOPE_CHOICES.map((c) => c.scope).filter((s) => chosen.has(s));
  return { name: name.trim(), scopes, ...(sandbox ? { sandbox: true as const } : {}) };
}
