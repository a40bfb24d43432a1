/** Storage imports and exports without the network: names, schemas, aliases, secrets, error reports. */
import { S3ServiceException } from '@aws-sdk/client-s3';
import { RestError } from '@azure/storage-blob';
import { ApiError } from '@google-cloud/storage';
import { describe, expect, it } from 'vitest';
import { operationDefinition } from '#lib/file-api/operations/index.js';
import { EXPORTS } from '../support/operations.js';
import { exportNames, formatName, hasPlaceholder, importEntry, storageFailure } from '#lib/file-api/operations/storage/storage-transfer.js';
import { TaskFailure, type OperationContext } from '#lib/file-api/operations/framework/types.js';
import { describeAzureError, containerUrl } from '#lib/adapters/user-storage/azure-blob-storage.js';
import { describeGcsError } from '#lib/adapters/user-storage/gcs-storage.js';
import { contentTypeOf } from '#lib/adapters/user-storage/mime.js';
import { describeS3Error } from '#lib/adapters/user-storage/s3-storage.js';
import { planJob, validateTask } from '#lib/file-api/tasks/plan.js';
import { hideSecrets, secretValues } from '#lib/kernel/redact.js';
import { redactPayload } from '#lib/file-api/records/secrets.js';

describe('object names', () => {
  it('formats printf placeholders: %d, zero padding, %%', () => {
    expect(formatName('myfile-%d.pdf', 2)).toBe('myfile-2.pdf');
    expect(formatName('page-%03d.png', 7)).toBe('page-007.png');
    expect(formatName('a-%i-%d.txt', 3)).toBe('a-3-3.txt');
    expect(formatName('100%%-%d.txt', 1)).toBe('100%-1.txt');
    expect(hasPlaceholder('x-%d')).toBe(true);
    expect(hasPlaceholder('100%%.txt')).toBe(false);
    expect(hasPlaceholder('plain.txt')).toBe(false);
  });

  it('names exported objects from key, key_prefix or the file path', () => {
    const files = [{ filename: 'a.txt' }, { filename: 'b.txt', dir: 'sub' }];
    expect(exportNames(files, { name: 'out-%d.txt' })).toEqual(['out-1.txt', 'out-2.txt']);
    expect(exportNames(files, { prefix: 'in/' })).toEqual(['in/a.txt', 'in/sub/b.txt']);
    expect(exportNames(files, {})).toEqual(['a.txt', 'sub/b.txt']);
    expect(exportNames([files[0]!], { name: 'exact/name.txt' })).toEqual(['exact/name.txt']);
    expect(() => exportNames(files, { name: 'one.txt' }, 'blob')).toThrow(/blob names one object but there are 2 files/);
    try {
      exportNames(files, { name: 'one.txt' });
    } catch (err) {
      expect(err).toBeInstanceOf(TaskFailure);
      expect((err as TaskFailure).code).toBe('INVALID_DATA');
    }
  });

  it('names imported files after the object, keeping sub-folders below a prefix as dir', () => {
    expect(importEntry('a/b/c.txt')).toEqual({ filename: 'c.txt' });
    expect(importEntry('in/c.txt', 'in/')).toEqual({ filename: 'c.txt' });
    expect(importEntry('in/deep/er/c.txt', 'in/')).toEqual({ filename: 'c.txt', dir: 'deep/er' });
    expect(importEntry('inbox.txt', 'in')).toEqual({ filename: 'box.txt' });
  });

  it('picks the content type: the stored one unless generic, else by extension', () => {
    expect(contentTypeOf('a.pdf', 'binary/octet-stream')).toBe('application/pdf');
    expect(contentTypeOf('a.pdf', 'application/x-custom')).toBe('application/x-custom');
    expect(contentTypeOf('photo.JPG')).toBe('image/jpeg');
    expect(contentTypeOf('noext')).toBe('application/octet-stream');
  });

  it('builds the Azure container URL from the template and refuses odd account names', () => {
    expect(containerUrl({ account: 'acct1', container: 'files' })).toBe('https://acct1.blob.core.windows.net/files');
    expect(containerUrl({ account: 'acct1', container: 'files', endpointTemplate: 'http://127.0.0.1:1/{account}/' })).toBe('http://127.0.0.1:1/acct1/files');
    expect(() => containerUrl({ account: 'evil.com/x', container: 'files' })).toThrow(/storage_account/);
  });
});

describe('operation catalog', () => {
  const errorsOf = (op: string, args: Record<string, unknown>) => {
    const errors: Record<string, string[]> = {};
    validateTask({ operation: op, ...args }, '', errors);
    return errors;
  };
  const s3 = { bucket: 'b', region: 'eu-central-1', access_key_id: 'AKIA1', secret_access_key: 'secret' };

  it('declares the real operations and the neutral aliases with the same schema and step', () => {
    for (const name of ['import/s3', 'export/s3', 'import/azure/blob', 'export/azure/blob', 'import/google-cloud-storage', 'export/google-cloud-storage', 'export/upload']) {
      expect(operationDefinition(name), name).toBeDefined();
    }
    const aliases = { 'export/objstore': 'export/s3', 'export/blobstore/blob': 'export/azure/blob', 'export/cloud-storage': 'export/google-cloud-storage' };
    for (const [alias, real] of Object.entries(aliases)) {
      // The same definition under a second name, run by the same implementation.
      expect(operationDefinition(alias)).toBe(operationDefinition(real));
      expect(EXPORTS[alias]).toBe(EXPORTS[real]);
    }
  });

  it('accepts the aliases in jobs', () => {
    const plan = planJob({
      tasks: {
        raw: { operation: 'import/raw', file: 'x', filename: 'x.txt' },
        out: { operation: 'export/objstore', input: 'raw', ...s3 },
        blob: { operation: 'export/blobstore/blob', input: 'raw', storage_account: 'acct1', sas_token: 'sv=1&sig=2', container: 'files' },
      },
    });
    expect(plan.tasks.map((t) => t.payload.operation)).toEqual(['import/raw', 'export/objstore', 'export/blobstore/blob']);
    expect(plan.tasks.map((t) => t.spec.name)).toEqual(['import/raw', 'export/s3', 'export/azure/blob']);
  });

  it('names each missing or wrong argument', () => {
    expect(Object.keys(errorsOf('export/s3', { input: 'a' })).sort()).toEqual(['access_key_id', 'bucket', 'region', 'secret_access_key']);
    expect(errorsOf('export/s3', { input: 'a', ...s3, key: 'a', key_prefix: 'b/' })).toEqual({ key_prefix: ['give either key or key_prefix, not both'] });
    expect(errorsOf('import/s3', s3)).toEqual({ key: ['give key (one object) or key_prefix (every object under it)'] });
    expect(Object.keys(errorsOf('export/s3', { input: 'a', ...s3, acl: 'everyone', endpoint: 'ftp://x' })).sort()).toEqual(['acl', 'endpoint']);
    expect(errorsOf('export/azure/blob', { input: 'a', storage_account: 'acct1', container: 'files' })).toEqual({
      storage_access_key: ['give storage_access_key or sas_token'],
    });
    expect(Object.keys(errorsOf('import/azure/blob', { storage_account: 'Bad.Name', container: 'x', blob: 'b' })).sort()).toEqual(['container', 'storage_account']);
    expect(Object.keys(errorsOf('export/google-cloud-storage', { input: 'a', project_id: 'p-123456', bucket: 'bkt', client_email: 'nope', private_key: 'abc' })).sort()).toEqual([
      'client_email',
      'private_key',
    ]);
    expect(Object.keys(errorsOf('export/upload', { input: 'a', url: 'http://x.test/put', headers: { 'bad header': 'v' } }))).toEqual(['headers.bad header']);
    expect(errorsOf('export/upload', { url: 'http://x.test/put' })).toEqual({ input: ['The input field is required.'] });
    expect(errorsOf('export/s3', { input: 'a', ...s3, metadata: { n: 3 }, tagging: { t: true } })).toEqual({});
  });
});

describe('secrets of storage payloads', () => {
  const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nAbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij\n-----END PRIVATE KEY-----\n';
  const payload = {
    operation: 'export/s3',
    access_key_id: 'AKIAEXAMPLE123',
    secret_access_key: 'wJalrXUtnFEMI/K7MDENG',
    session_token: 'FwoGZXIvYXdzEExample',
    storage_access_key: 'base64key==',
    sas_token: 'sv=2024-01-01&sr=c&sp=racwl&sig=AbCdEf0123456789%2Bxyz%3D',
    private_key: pem,
    client_email: 'sa@p.iam.gserviceaccount.com',
    url: 'https://bucket.s3.amazonaws.com/k?X-Amz-Credential=AKIA%2F20240101&X-Amz-Signature=deadbeef00112233&x-id=PutObject',
    headers: { Authorization: 'Bearer abc.def', 'x-custom': 'visible' },
  };

  it('hides every credential in responses', () => {
    const shown = redactPayload(payload);
    const text = JSON.stringify(shown);
    for (const v of ['AKIAEXAMPLE123', 'wJalrXUtnFEMI', 'FwoGZXIvYXdzEExample', 'base64key', 'AbCdEf0123456789', 'MIIEvQIBADAN', 'deadbeef00112233', 'abc.def']) {
      expect(text).not.toContain(v);
    }
    expect(shown.client_email).toBe('sa@p.iam.gserviceaccount.com');
    // Headers are an allowlist: a custom header's value is hidden too.
    expect(shown.headers).toEqual({ Authorization: '[hidden]', 'x-custom': '[hidden]' });
    expect(String(shown.url)).toContain('x-id=PutObject');
  });

  it('lists secret values and their parts, and hides them in any text', () => {
    const secrets = secretValues(payload);
    expect(secrets).toEqual(expect.arrayContaining(['wJalrXUtnFEMI/K7MDENG', 'AbCdEf0123456789+xyz=', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7', 'deadbeef00112233', 'Bearer abc.def']));
    const text = `key ${encodeURIComponent('wJalrXUtnFEMI/K7MDENG')} line MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7 sig AbCdEf0123456789+xyz=`;
    expect(hideSecrets(text, secrets)).toBe('key [hidden] line [hidden] sig [hidden]');
  });
});

describe('storage errors', () => {
  const ctx = (attempt: number, extra: Record<string, unknown> = {}) =>
    ({ task: { attempt }, finalAttempt: attempt >= 5, payload: { secret_access_key: 'sup3r-secret-value', ...extra } }) as unknown as OperationContext;
  const s3 = { service: 'S3', describe: describeS3Error };

  it('reads the service code, status and message of each SDK', () => {
    const s3Error = new S3ServiceException({ name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 }, message: 'Access Denied' });
    expect(describeS3Error(s3Error)).toEqual({ code: 'AccessDenied', status: 403, message: 'Access Denied', transient: false });
    const azure = new RestError('This request is not authorized.\nRequestId:1\nTime:2', { code: 'AuthorizationFailure', statusCode: 403 });
    expect(describeAzureError(azure)).toEqual({ code: 'AuthorizationFailure', status: 403, message: 'This request is not authorized.', transient: false });
    const gcs = Object.assign(new ApiError('Backend Error'), { code: 503, errors: [{ reason: 'backendError', message: 'Backend Error' }] });
    expect(describeGcsError(gcs)).toEqual({ code: 'backendError', status: 503, message: 'Backend Error', transient: true });
    expect(describeS3Error(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })).transient).toBe(true);
  });

  it('becomes the task error: service, code, status, message; secrets hidden; transient ones retried until the last attempt', () => {
    const err = new S3ServiceException({
      name: 'InvalidArgument',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      message: 'Bad key sup3r-secret-value given',
    });
    const failure = storageFailure(ctx(1), s3, err, 'UPLOAD_FAILED');
    expect(failure).toMatchObject({ code: 'UPLOAD_FAILED', retryable: false, message: 'S3 (InvalidArgument, HTTP 400): Bad key [hidden] given' });
    const busy = new S3ServiceException({ name: 'SlowDown', $fault: 'server', $metadata: { httpStatusCode: 503 }, message: 'Reduce your request rate.' });
    expect(storageFailure(ctx(1), s3, busy, 'UPLOAD_FAILED').retryable).toBe(true);
    expect(storageFailure(ctx(5), s3, busy, 'UPLOAD_FAILED').retryable).toBe(false);
  });
});
