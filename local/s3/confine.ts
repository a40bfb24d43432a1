/**
 * What keeps the local S3 endpoint's requests inside s3rver's data folder. s3rver maps a bucket and a
 * key straight onto a file path (`path.join(root, bucket, ...key.split('/'))`), and an upload id and
 * part number onto a folder and a file, so a `..` anywhere in them reaches any file the process can
 * read, write or delete. S3 itself keeps `.` and `..` in keys literally; a file-system backend cannot,
 * so these are refused with `400` (in S3's XML error format):
 *
 * - a bucket name that is not a plain S3 bucket name (letters, digits, `.`, `-`, `_`, no `..`);
 * - a key with a `.` or `..` segment, or a NUL (after percent-decoding, as s3rver decodes);
 * - the same in `x-amz-copy-source` and in the keys of a multi-object delete;
 * - an `uploadId` other than s3rver's hex ids, a `partNumber` other than a number.
 */

export interface S3Problem {
  status: number;
  code: string;
  message: string;
  extra?: Record<string, string | number>;
}

const BUCKET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;
const UPLOAD_ID = /^[A-Za-z0-9_-]{1,256}$/;
const PART_NUMBER = /^\d{1,5}$/;

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** Why a key could not be stored on the file system, or undefined. */
export function keyProblem(key: string): string | undefined {
  if (key.includes('\0')) return 'a NUL character';
  if (key.split('/').some((s) => s === '.' || s === '..')) return 'a "." or ".." segment';
  return undefined;
}

const invalidKey = (key: string, why: string): S3Problem => ({
  status: 400,
  code: 'InvalidArgument',
  message: `Object keys with ${why} are refused by this local S3 endpoint: its file-system backend would resolve them.`,
  extra: { ArgumentName: 'key', ArgumentValue: key.slice(0, 1024) },
});

function bucketProblem(bucket: string): S3Problem | undefined {
  if (BUCKET_NAME.test(bucket) && !bucket.includes('..')) return undefined;
  return { status: 400, code: 'InvalidBucketName', message: 'The specified bucket is not valid.', extra: { BucketName: bucket.slice(0, 255) } };
}

/** A `/bucket/key` path (raw or decoded) checked: bucket name, then key. */
function pathProblem(bucket: string, key: string | undefined): S3Problem | undefined {
  const bad = bucketProblem(bucket);
  if (bad) return bad;
  const why = key === undefined ? undefined : keyProblem(key);
  return why && key !== undefined ? invalidKey(key, why) : undefined;
}

/** The request target's problem, if any: its path, its upload id and part number, its copy source. */
export function requestProblem(url: string, headers: Record<string, string | string[] | undefined>): S3Problem | undefined {
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const path = decode(rawPath);
  if (path === undefined) return { status: 400, code: 'InvalidURI', message: "Couldn't parse the specified URI." };
  const slash = path.indexOf('/', 1);
  const bucket = slash < 0 ? path.slice(1) : path.slice(1, slash);
  if (bucket !== '') {
    const bad = pathProblem(bucket, slash < 0 ? undefined : path.slice(slash + 1));
    if (bad) return bad;
  }
  for (const part of (q < 0 ? '' : url.slice(q + 1)).split('&')) {
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq))?.replace(/\+/g, ' ');
    const value = decode((eq < 0 ? '' : part.slice(eq + 1)).replace(/\+/g, ' ')) ?? '';
    if (name === 'uploadId' && !UPLOAD_ID.test(value)) {
      return { status: 404, code: 'NoSuchUpload', message: 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.', extra: { UploadId: value.slice(0, 256) } };
    }
    if (name === 'partNumber' && !PART_NUMBER.test(value)) {
      return { status: 400, code: 'InvalidArgument', message: 'Part number must be an integer between 1 and 10000, inclusive', extra: { ArgumentName: 'partNumber', ArgumentValue: value.slice(0, 64) } };
    }
  }
  const copySource = headers['x-amz-copy-source'];
  if (copySource !== undefined) {
    const raw = Array.isArray(copySource) ? copySource.join(',') : copySource;
    const source = decode(raw.split('?')[0]!.replace(/^\//, ''));
    if (source === undefined) return { status: 400, code: 'InvalidArgument', message: 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey', extra: { ArgumentName: 'x-amz-copy-source' } };
    const cut = source.indexOf('/');
    const bad = pathProblem(cut < 0 ? source : source.slice(0, cut), cut < 0 ? '' : source.slice(cut + 1));
    if (bad) return bad;
  }
  return undefined;
}

/** Whether a request is a multi-object delete (`POST /bucket?delete`), whose body names keys. */
export function isDeleteObjects(method: string | undefined, url: string): boolean {
  const q = url.indexOf('?');
  return method === 'POST' && q >= 0 && url.slice(q + 1).split('&').some((p) => p === 'delete' || p.startsWith('delete='));
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The keys of a multi-object delete body checked. s3rver decodes every HTML entity in them, so a key
 * with any entity but XML's five and numeric references is refused rather than guessed at.
 */
export function deleteListProblem(xml: string): S3Problem | undefined {
  for (const match of xml.matchAll(/<Key>([\s\S]*?)<\/Key>/g)) {
    let raw = match[1]!;
    const cdata = /^<!\[CDATA\[([\s\S]*)\]\]>$/.exec(raw);
    if (cdata) raw = cdata[1]!;
    let unknownEntity = false;
    const key = raw.replace(/&(#x[0-9a-fA-F]+|#\d+|[A-Za-z][A-Za-z0-9]*);/g, (all, ref: string) => {
      if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16) % 0x110000);
      if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10) % 0x110000);
      const known = XML_ENTITIES[ref];
      if (known === undefined) unknownEntity = true;
      return known ?? all;
    });
    if (unknownEntity) return invalidKey(raw, 'an HTML entity');
    const why = keyProblem(key);
    if (why) return invalidKey(key, why);
  }
  return undefined;
}

/** Whether a Host header names an address or localhost (what s3rver treats as path-style). */
export function isPathStyleHost(host: string | undefined): boolean {
  const name = (host ?? '').replace(/:\d*$/, '').replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return name === 'localhost' || /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || (name.includes(':') && /^[0-9a-f:.]+$/.test(name));
}
