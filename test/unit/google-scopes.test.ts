import { describe, expect, it } from 'vitest';
import { InvalidKeyInputError, parseScopes } from '#lib/access/auth/keys.js';
import { FILE_API_SCOPES, GOOGLE_SCOPES, SCOPES } from '#lib/access/auth/scopes.js';

describe('API key scopes', () => {
  it('holds the file API scopes and the Google OAuth scopes', () => {
    expect(SCOPES).toEqual([...FILE_API_SCOPES, ...GOOGLE_SCOPES]);
    expect(FILE_API_SCOPES).toEqual(['user.read', 'user.write', 'task.read', 'task.write', 'webhook.read', 'webhook.write']);
  });

  it('parses Google scopes given in full or without their prefix', () => {
    expect(parseScopes('task.read,https://www.googleapis.com/auth/cloud-platform drive.labels.readonly')).toEqual([
      'task.read',
      'https://www.googleapis.com/auth/cloud-platform',
      'https://www.googleapis.com/auth/drive.labels.readonly',
    ]);
    expect(() => parseScopes('drive.files')).toThrow(InvalidKeyInputError);
    expect(() => parseScopes('https://www.googleapis.com/auth/bogus')).toThrow(/unknown scope/);
  });
});
