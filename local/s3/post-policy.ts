/** The POST policy of a browser-form upload, verified as S3 does (SigV4 or legacy V2 signature, expiration, every condition). */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidPolicy, missingField, policyFailure, S3PostError } from './errors.js';
import { signingKey } from './sigv4.js';

/** S3's own upper bound for a POST upload (5 GB). */
const MAX_POST_OBJECT_SIZE = 5 * 1024 ** 3;

export interface FormField {
  name: string;
  value: string;
}

export interface PolicyLimits {
  minSize: number;
  maxSize: number;
}

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A condition as S3 quotes it in its errors: `["eq", "$key", "value"]`. */
const conditionText = (c: unknown) => (Array.isArray(c) ? `[${c.map((x) => JSON.stringify(x)).join(', ')}]` : JSON.stringify(c));

/** Fields that need no policy condition. */
export const isExemptField = (name: string) =>
  ['file', 'policy', 'x-amz-signature', 'signature', 'awsaccesskeyid'].includes(name) || name.startsWith('x-ignore-');

/**
 * Verifies a browser-form POST as S3 does, from the fields before the file (values as submitted, before
 * `${filename}` substitution). Returns the `content-length-range` limits; throws an S3PostError.
 */
export function verifyPostPolicy(
  fields: readonly FormField[],
  bucket: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  now: Date = new Date(),
): PolicyLimits {
  const values = new Map<string, string>();
  for (const f of fields) {
    const name = f.name.toLowerCase();
    if (!values.has(name)) values.set(name, f.value);
  }
  const policy = values.get('policy');
  if (policy === undefined) {
    // An anonymous upload: S3 allows it only into a publicly writable bucket.
    throw new S3PostError(403, 'AccessDenied', 'Access Denied');
  }

  // The signature (over the base64 policy as submitted).
  const v4Signature = values.get('x-amz-signature');
  if (v4Signature !== undefined) {
    const algorithm = values.get('x-amz-algorithm');
    if (algorithm === undefined) throw missingField('x-amz-algorithm');
    if (algorithm !== 'AWS4-HMAC-SHA256') {
      throw new S3PostError(400, 'InvalidArgument', `Unsupported algorithm: ${algorithm}`, { ArgumentName: 'x-amz-algorithm', ArgumentValue: algorithm });
    }
    const credential = values.get('x-amz-credential');
    if (credential === undefined) throw missingField('x-amz-credential');
    if (values.get('x-amz-date') === undefined) throw missingField('x-amz-date');
    const [accessKeyId, date, region, service, terminator, ...more] = credential.split('/');
    if (!accessKeyId || !date || !/^\d{8}$/.test(date) || !region || !service || terminator !== 'aws4_request' || more.length) {
      throw new S3PostError(400, 'InvalidArgument', `Invalid credential: ${credential}`, { ArgumentName: 'x-amz-credential', ArgumentValue: credential });
    }
    if (accessKeyId !== credentials.accessKeyId) {
      throw new S3PostError(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', { AWSAccessKeyId: accessKeyId });
    }
    if (!sameSecret(hmac(signingKey(credentials.secretAccessKey, date, region, service), policy).toString('hex'), v4Signature.toLowerCase())) {
      throw new S3PostError(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        { AWSAccessKeyId: accessKeyId, StringToSign: policy },
      );
    }
  } else if (values.get('signature') !== undefined) {
    const accessKeyId = values.get('awsaccesskeyid');
    if (accessKeyId === undefined) throw missingField('AWSAccessKeyId');
    if (accessKeyId !== credentials.accessKeyId) {
      throw new S3PostError(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', { AWSAccessKeyId: accessKeyId });
    }
    const expected = createHmac('sha1', credentials.secretAccessKey).update(policy, 'utf8').digest('base64');
    if (!sameSecret(expected, values.get('signature')!)) {
      throw new S3PostError(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        { AWSAccessKeyId: accessKeyId, StringToSign: policy },
      );
    }
  } else {
    throw missingField('x-amz-signature');
  }

  // The policy document.
  let doc: unknown;
  try {
    if (!/^[A-Za-z0-9+/=\s]*$/.test(policy)) throw new Error('not base64');
    doc = JSON.parse(Buffer.from(policy, 'base64').toString('utf8'));
  } catch {
    throw invalidPolicy('Invalid JSON.');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalidPolicy('Invalid JSON.');
  const { expiration, conditions } = doc as { expiration?: unknown; conditions?: unknown };
  if (expiration === undefined) throw invalidPolicy('Policy missing expiration.');
  const expires = typeof expiration === 'string' ? Date.parse(expiration) : NaN;
  if (Number.isNaN(expires)) throw invalidPolicy(`Invalid 'expiration' value: '${String(expiration)}'`);
  if (now.getTime() > expires) throw policyFailure('Policy expired.');
  if (!Array.isArray(conditions)) throw invalidPolicy('Policy missing conditions.');

  const limits: PolicyLimits = { minSize: 0, maxSize: MAX_POST_OBJECT_SIZE };
  const covered = new Set<string>();
  const valueOf = (field: string) => (field === 'bucket' ? bucket : (values.get(field) ?? ''));
  for (const condition of conditions as unknown[]) {
    if (Array.isArray(condition)) {
      const op = typeof condition[0] === 'string' ? condition[0].toLowerCase() : '';
      if (op === 'content-length-range') {
        const min = Number(condition[1]);
        const max = Number(condition[2]);
        if (condition.length !== 3 || !Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
          throw invalidPolicy(`Invalid content-length-range condition: ${conditionText(condition)}`);
        }
        limits.minSize = Math.max(limits.minSize, min);
        limits.maxSize = Math.min(limits.maxSize, max);
        continue;
      }
      const [, target, expected] = condition as [unknown, unknown, unknown];
      if (
        (op !== 'eq' && op !== 'starts-with') ||
        condition.length !== 3 ||
        typeof target !== 'string' ||
        !target.startsWith('$') ||
        typeof expected !== 'string'
      ) {
        throw invalidPolicy(`Invalid Condition: ${conditionText(condition)}`);
      }
      const field = target.slice(1).toLowerCase();
      covered.add(field);
      const actual = valueOf(field);
      if (op === 'eq' ? actual !== expected : !actual.startsWith(expected)) {
        throw policyFailure(`Policy Condition failed: ${conditionText(condition)}`);
      }
    } else if (typeof condition === 'object' && condition !== null) {
      const entries = Object.entries(condition);
      if (entries.length !== 1) throw invalidPolicy('Invalid Simple-Condition: Simple-Conditions must have exactly one property specified.');
      for (const [name, expected] of entries) {
        if (typeof expected !== 'string') throw invalidPolicy(`Invalid Condition: ${conditionText(condition)}`);
        const field = name.toLowerCase();
        covered.add(field);
        if (valueOf(field) !== expected) {
          throw policyFailure(`Policy Condition failed: ${conditionText(['eq', `$${name}`, expected])}`);
        }
      }
    } else {
      throw invalidPolicy(`Invalid Condition: ${conditionText(condition)}`);
    }
  }
  const extra = [...values.keys()].filter((name) => !isExemptField(name) && !covered.has(name));
  if (extra.length) throw policyFailure(`Extra input fields: ${extra.join(', ')}`);
  return limits;
}
