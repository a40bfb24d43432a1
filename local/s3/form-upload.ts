/**
 * The form upload of the local S3 front: the form read (fields, then the file part spooled to disk while its
 * size is checked), and the well-formed multipart body s3rver gets instead.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { keyProblem } from './confine.js';
import { entityTooLarge, malformedPost, missingField, S3PostError } from './errors.js';
import { MultipartScanner, parseContentDisposition, parsePartHeaders, type MultipartEvent } from './multipart.js';
import { isExemptField, type FormField, type PolicyLimits } from './post-policy.js';

/** The base name S3 substitutes for `${filename}`: what follows the last `/` or `\`. */
export const uploadBaseName = (filename: string) => filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);

export interface SpooledForm {
  fields: FormField[];
  filename: string;
  contentType: string | undefined;
  spoolPath: string;
  size: number;
}

export class ClientGone extends Error {
  constructor() {
    super('the client closed the connection before the upload was complete');
  }
}

/**
 * Reads the form: fields up to the first `file` part, then that part into a spool file while counting its
 * bytes. The policy is verified as soon as the file part's headers are known (before any file byte is
 * read); the size limits are enforced as the bytes arrive. Resolves once the request has ended and the
 * spool file is complete.
 */
export function readForm(
  req: IncomingMessage,
  opts: { boundary: string; spoolPath: string; maxPreDataBytes: number; verify: (fields: FormField[]) => PolicyLimits },
): Promise<SpooledForm> {
  return new Promise<SpooledForm>((resolve, reject) => {
    const scanner = new MultipartScanner(opts.boundary);
    const fields: FormField[] = [];
    let preData = 0;
    let part: { kind: 'field'; name: string; chunks: Buffer[] } | { kind: 'file' } | undefined;
    let file: { filename: string; contentType: string | undefined; out: WriteStream; size: number; limits: PolicyLimits; dataStart: number } | undefined;
    let fileDone = false;
    let fileFlushed = false;
    let requestEnded = false;
    let settled = false;

    const finish = () => {
      if (settled || !requestEnded || !fileFlushed || !file) return;
      settled = true;
      resolve({ fields, filename: file.filename, contentType: file.contentType, spoolPath: opts.spoolPath, size: file.size });
    };
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      const out = file?.out;
      if (out) {
        // The spool file goes once its stream has closed (it may still be opening).
        const remove = () => void rm(opts.spoolPath, { force: true }).catch(() => {});
        if (out.closed) remove();
        else out.once('close', remove);
        out.destroy();
      }
      reject(err instanceof Error ? err : new Error(String(err)));
    };

    const onEvent = (ev: MultipartEvent): boolean => {
      switch (ev.kind) {
        case 'headers': {
          const headers = parsePartHeaders(ev.raw);
          const disposition = parseContentDisposition(headers.get('content-disposition') ?? '');
          const name = disposition.name;
          if (name === undefined || disposition.type !== 'form-data') throw malformedPost();
          if (name.toLowerCase() !== 'file') {
            preData += ev.raw.length;
            part = { kind: 'field', name, chunks: [] };
            break;
          }
          // The file part: everything S3 needs has arrived.
          if (!fields.some((f) => f.name.toLowerCase() === 'key')) throw missingField('key');
          const limits = opts.verify(fields);
          const out = createWriteStream(opts.spoolPath, { flags: 'wx', mode: 0o600 });
          out.on('error', fail);
          out.on('finish', () => {
            fileFlushed = true;
            finish();
          });
          file = { filename: disposition.filename ?? '', contentType: headers.get('content-type'), out, size: 0, limits, dataStart: ev.bodyStart };
          part = { kind: 'file' };
          break;
        }
        case 'data':
          if (part?.kind === 'field') {
            preData += ev.data.length;
            if (preData > opts.maxPreDataBytes) {
              throw new S3PostError(400, 'MaxPostPreDataLengthExceeded', 'Your POST request fields preceding the upload file were too large.');
            }
            part.chunks.push(Buffer.from(ev.data));
          } else if (part?.kind === 'file' && file) {
            file.size += ev.data.length;
            if (file.size > file.limits.maxSize) {
              // The size proposed: what the declared length leaves for the file, at least what arrived.
              const contentLength = Number(req.headers['content-length']);
              const declared = Number.isFinite(contentLength) ? contentLength - file.dataStart - (opts.boundary.length + 8) : 0;
              throw entityTooLarge(Math.max(file.size, declared), file.limits.maxSize);
            }
            file.out.write(ev.data);
          }
          break;
        case 'partEnd':
          if (part?.kind === 'field') {
            fields.push({ name: part.name, value: Buffer.concat(part.chunks).toString('utf8') });
          } else if (part?.kind === 'file' && file) {
            if (file.size < file.limits.minSize) {
              throw new S3PostError(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size', {
                ProposedSize: file.size,
                MinSizeAllowed: file.limits.minSize,
              });
            }
            // S3 ignores whatever follows the file.
            fileDone = true;
            file.out.end();
            return false;
          }
          part = undefined;
          break;
        case 'end':
          break;
      }
      return true;
    };

    req.on('data', (chunk: Buffer) => {
      if (settled || fileDone) return;
      try {
        for (const ev of scanner.push(chunk)) if (!onEvent(ev)) break;
      } catch (err) {
        fail(err);
        return;
      }
      // Back-pressure: stop reading the request until the spool file has taken the data.
      const out = file?.out;
      if (out?.writableNeedDrain && !fileDone) {
        req.pause();
        out.once('drain', () => {
          if (!settled) req.resume();
        });
      }
    });
    req.on('end', () => {
      requestEnded = true;
      if (settled) return;
      try {
        if (!fileDone) {
          for (const ev of scanner.end()) onEvent(ev);
          // No file part at all: the same checks S3 makes, then the missing file.
          if (!fields.some((f) => f.name.toLowerCase() === 'key')) throw missingField('key');
          opts.verify(fields);
          throw new S3PostError(400, 'InvalidArgument', 'POST requires exactly one file upload per request.', { ArgumentName: 'file', ArgumentValue: 0 });
        }
        finish();
      } catch (err) {
        fail(err);
      }
    });
    req.on('error', () => fail(new ClientGone()));
    req.on('close', () => {
      if (!requestEnded) fail(new ClientGone());
    });
  });
}

/** A quoted-string for a re-emitted header parameter. */
const quoted = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;

/** A header value as S3 answers non-ASCII user metadata: one RFC 2047 `B` encoded-word of its UTF-8. */
export const encodeMimeWord = (value: string) =>
  /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** The well-formed multipart body s3rver gets: fields (with `${filename}` substituted), then the spooled file. */
export function rebuildForm(form: SpooledForm): { boundary: string; length: number; body: () => AsyncGenerator<Buffer> } {
  const boundary = `----s3front${randomBytes(16).toString('hex')}`;
  const base = uploadBaseName(form.filename);
  const parts: Buffer[] = [];
  const seen = new Set<string>();
  for (const f of form.fields) {
    const name = f.name.toLowerCase();
    // The first of repeated fields is the one the policy was checked against (s3rver would keep the last).
    if (seen.has(name)) continue;
    seen.add(name);
    const substituted = isExemptField(name) ? f.value : f.value.split('${filename}').join(base);
    // S3 keeps user metadata that is not US-ASCII and answers it RFC 2047-encoded (s3rver would store it
    // as is and then fail to send it as a header): stored here as S3 answers it.
    const value = name.startsWith('x-amz-meta-') ? encodeMimeWord(substituted) : substituted;
    const why = name === 'key' ? keyProblem(value) : undefined;
    if (why) {
      throw new S3PostError(400, 'InvalidArgument', `Object keys with ${why} are refused by this local S3 endpoint: its file-system backend would resolve them.`, {
        ArgumentName: 'key',
        ArgumentValue: value.slice(0, 1024),
      });
    }
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`, 'utf8'));
  }
  // busboy 0.3.1 treats a part as a file when it has a filename or is application/octet-stream.
  const disposition = form.filename ? `form-data; name="file"; filename=${quoted(form.filename)}` : 'form-data; name="file"';
  const contentType = form.filename && form.contentType ? form.contentType.replace(/[\r\n]/g, ' ') : 'application/octet-stream';
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${contentType}\r\n\r\n`, 'utf8'));
  const head = Buffer.concat(parts);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    boundary,
    length: head.length + form.size + tail.length,
    body: async function* () {
      yield head;
      for await (const chunk of createReadStream(form.spoolPath)) yield chunk as Buffer;
      yield tail;
    },
  };
}
