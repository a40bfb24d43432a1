/** S3's XML errors, as the local S3 front (local/s3/front.ts) answers them. */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { S3Problem } from './confine.js';

/** After an early error answer, how much more of the request is read (and discarded) before the connection is cut. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

/** An error answered in S3's XML error format. */
export class S3PostError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string | number> = {},
  ) {
    super(message);
    this.name = 'S3PostError';
  }
}

export const xmlEscape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

export function s3ErrorXml(err: S3PostError, requestId: string): string {
  const extra = Object.entries(err.extra)
    .map(([k, v]) => `<${k}>${xmlEscape(String(v))}</${k}>`)
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${xmlEscape(err.code)}</Code><Message>${xmlEscape(err.message)}</Message>${extra}` +
    `<RequestId>${requestId}</RequestId><HostId>${createHash('sha256').update(requestId).digest('base64')}</HostId></Error>`
  );
}

export const fromProblem = (p: S3Problem) => new S3PostError(p.status, p.code, p.message, p.extra);

export const malformedPost = () =>
  new S3PostError(400, 'MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.');
export const missingField = (name: string) =>
  new S3PostError(
    400,
    'InvalidArgument',
    `Bucket POST must contain a field named '${name}'.  If it is specified, please check the order of the fields.`,
    { ArgumentName: name, ArgumentValue: '' },
  );
export const policyFailure = (detail: string) => new S3PostError(403, 'AccessDenied', `Invalid according to Policy: ${detail}`);
export const invalidPolicy = (detail: string) => new S3PostError(400, 'InvalidPolicyDocument', `Invalid Policy: ${detail}`);
export const entityTooLarge = (proposed: number, max: number) =>
  new S3PostError(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', { ProposedSize: proposed, MaxSizeAllowed: max });

/**
 * Answers `err` in S3's XML format (or cuts the connection when an answer has begun). `cors` gives the
 * bucket's CORS headers for the request's origin, so a browser can read the error of a form upload.
 */
export async function sendS3Error(
  req: IncomingMessage,
  res: ServerResponse,
  err: S3PostError,
  cors?: (origin: string) => Promise<OutgoingHttpHeaders>,
): Promise<void> {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const body = s3ErrorXml(err, requestId);
  const headers: OutgoingHttpHeaders = {
    'Content-Type': 'application/xml',
    'Content-Length': Buffer.byteLength(body),
    'x-amz-request-id': requestId,
    ...(cors && req.headers.origin ? await cors(req.headers.origin) : {}),
  };
  res.writeHead(err.status, headers);
  res.end(body);
}

/** After an early answer, read (and drop) the rest of the upload so the client can read the answer. */
export function drain(req: IncomingMessage): void {
  let drained = 0;
  req.on('data', (c: Buffer) => {
    drained += c.length;
    if (drained > MAX_DRAIN_BYTES) req.socket.destroy();
  });
  req.resume();
}
