/** `import/sftp`, `export/sftp`, `import/openstack`, `export/openstack` without the network: registration, schemas, secrets. */
import { describe, expect, it } from 'vitest';
import { operationDefinition } from '#lib/file-api/operations/index.js';
import { exportNames } from '#lib/file-api/operations/storage/storage-transfer.js';
import { hideSecrets, secretValues } from '#lib/kernel/redact.js';
import { validateTask } from '#lib/file-api/tasks/plan.js';
import { redactPayload } from '#lib/file-api/records/secrets.js';
import { EXPORTS, IMPORTS } from '../support/operations.js';

const errorsOf = (op: string, args: Record<string, unknown>) => {
  const errors: Record<string, string[]> = {};
  validateTask({ operation: op, ...args }, '', errors);
  return errors;
};
const sftp = { host: 'sftp.example.com', username: 'alice', password: 'pw-123456' };
const swift = { auth_url: 'https://keystone.example.com:5000/v3', username: 'alice', password: 'pw-123456', region: 'RegionOne', container: 'files' };

describe('SFTP and OpenStack operations', () => {
  it('are declared and implemented in the step tables', () => {
    for (const name of ['import/sftp', 'import/openstack']) {
      expect(operationDefinition(name)?.step, name).toBe('import');
      expect(IMPORTS[name], name).toBeTypeOf('function');
    }
    for (const name of ['export/sftp', 'export/openstack']) {
      expect(operationDefinition(name)?.step, name).toBe('export');
      expect(EXPORTS[name], name).toBeTypeOf('function');
    }
  });

  it('SFTP: password or private_key is required (the error names password); file or path', () => {
    expect(errorsOf('export/sftp', { input: 'a', host: 'h.example', username: 'u' })).toEqual({ password: ['give password or private_key'] });
    expect(errorsOf('export/sftp', { input: 'a', host: 'h.example', username: 'u', private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nx\n' })).toEqual({});
    expect(errorsOf('export/sftp', { input: 'a', ...sftp, port: '2222', file: 'out/a.pdf' })).toEqual({});
    expect(errorsOf('export/sftp', { input: 'a', ...sftp, file: 'a', path: 'b/' })).toEqual({ path: ['give either file or path, not both'] });
    expect(errorsOf('import/sftp', sftp)).toEqual({ file: ['give file (one object) or path (every object under it)'] });
    expect(errorsOf('import/sftp', { ...sftp, path: 'in' })).toEqual({});
    expect(Object.keys(errorsOf('import/sftp', { file: 'x', port: 70000 })).sort()).toEqual(['host', 'port', 'username']);
  });

  it('OpenStack: the Keystone connection is required; file or file_prefix', () => {
    expect(Object.keys(errorsOf('export/openstack', { input: 'a' })).sort()).toEqual(['auth_url', 'container', 'password', 'region', 'username']);
    expect(errorsOf('export/openstack', { input: 'a', ...swift, project_name: 'demo', domain: 'Default', file_prefix: 'out/' })).toEqual({});
    expect(errorsOf('import/openstack', swift)).toEqual({ file: ['give file (one object) or file_prefix (every object under it)'] });
    expect(Object.keys(errorsOf('import/openstack', { ...swift, auth_url: 'ftp://x', container: 'a/b', file: 'f' })).sort()).toEqual(['auth_url', 'container']);
  });

  it('SFTP names several files by path, and says so when file has no placeholder', () => {
    const files = [{ filename: 'a.txt' }, { filename: 'b.txt' }];
    expect(exportNames(files, { prefix: 'out/' }, 'file', 'path')).toEqual(['out/a.txt', 'out/b.txt']);
    expect(() => exportNames(files, { name: 'x.txt' }, 'file', 'path')).toThrow(/use a placeholder such as %d in file or use path/);
  });

  it('hides password, private_key and passphrase in payloads and in text', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABD\n-----END OPENSSH PRIVATE KEY-----\n';
    const payload = { operation: 'export/sftp', ...sftp, password: 'sftp-pass-9876', private_key: key, passphrase: 'key-phrase-5432', host_key: 'SHA256:abc' };
    const shown = redactPayload(payload);
    const text = JSON.stringify(shown);
    for (const v of ['sftp-pass-9876', 'b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABD', 'key-phrase-5432']) expect(text).not.toContain(v);
    expect(shown).toMatchObject({ host: 'sftp.example.com', username: 'alice', password: '[hidden]', private_key: '[hidden]', passphrase: '[hidden]' });
    const secrets = secretValues(payload);
    expect(hideSecrets('auth with sftp-pass-9876 then key-phrase-5432', secrets)).toBe('auth with [hidden] then [hidden]');
    const swiftShown = redactPayload({ operation: 'export/openstack', ...swift, password: 'swift-pass-1111' });
    // auth_url is hidden too (the word `auth` in its name): over-cautious, harmless.
    expect(swiftShown).toMatchObject({ username: 'alice', password: '[hidden]' });
  });
});
