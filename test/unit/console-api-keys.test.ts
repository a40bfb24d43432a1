/** The Account page's API keys without a browser: the scope choices, the form's body, refusals by field, the table's order. */
import { describe, expect, it } from 'vitest';
import { SCOPE_CHOICES, keyFormErrors, keyRows, newKeyBody, type ApiKeyView } from '../../console/src/api-keys.js';
import { FILE_API_SCOPES } from '#lib/access/auth/scopes.js';
import { SCOPE_WORDS } from '#lib/access/oauth/scopes.js';

const key = (id: string, created: string, revoked: string | null = null): ApiKeyView => ({ id, name: id, scopes: ['user.read'], sandbox: false, created_at: created, revoked_at: revoked });

describe('the console’s API keys', () => {
  it('offers the file API’s scopes (the console token’s), in the consent page’s words', () => {
    expect(SCOPE_CHOICES.map((c) => c.scope)).toEqual([...FILE_API_SCOPES]);
    for (const { scope, words } of SCOPE_CHOICES) expect(words, scope).toBe(SCOPE_WORDS[scope as keyof typeof SCOPE_WORDS]);
  });

  it('sends the trimmed name, the chosen scopes in the list’s order, and sandbox only when asked', () => {
    expect(newKeyBody('  ci  ', new Set(['task.write', 'user.read']), false)).toEqual({ name: 'ci', scopes: ['user.read', 'task.write'] });
    expect(newKeyBody('s', new Set(['task.read']), true)).toEqual({ name: 's', scopes: ['task.read'], sandbox: true });
  });

  it('puts a refusal under the fields it names and the rest above the form', () => {
    expect(keyFormErrors({ message: 'The given data was invalid.', errors: { name: ['must not be empty'], scopes: ['lacks task.write', 'again'] } })).toEqual({
      fields: { name: 'must not be empty', scopes: 'lacks task.write again' },
    });
    expect(keyFormErrors({ message: 'The given data was invalid.', errors: { api_keys: ['at most 100'] } })).toEqual({ fields: {}, general: 'at most 100' });
    expect(keyFormErrors({ message: 'Forbidden here.' })).toEqual({ fields: {}, general: 'Forbidden here.' });
  });

  it('lists live keys first, each group newest first', () => {
    const rows = keyRows([key('a', '2026-01-01T00:00:00+00:00', '2026-02-01T00:00:00+00:00'), key('b', '2026-01-02T00:00:00+00:00'), key('c', '2026-01-03T00:00:00+00:00'), key('d', '2026-01-04T00:00:00+00:00', '2026-02-02T00:00:00+00:00')]);
    expect(rows.map((k) => k.id)).toEqual(['c', 'b', 'd', 'a']);
  });
});
