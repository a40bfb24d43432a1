/**
 * Uploads one file through a presigned POST form (FileStore.uploadForm), streaming, with the length
 * known in advance (S3 takes no chunked form upload): how an engine function, which holds no
 * credential, stores its outputs. Storage checks the form's policy (key prefix, size range, expiry).
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { UploadForm } from './port.js';

export class FormPostError extends Error {
  override readonly name = 'FormPostError';
  constructor(
    readonly status: number,
    /** S3's error code (`EntityTooLarge`, `AccessDenied`…), when it said one. */
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

const quote = (value: string) => value.replace(/["\r\n\\]/g, '_');

/** POSTs `body` (`size` bytes) as the form's file, at `key`, with the form's fields and `extra` fields. */
export async function postForm(form: UploadForm, key: string, body: Readable, size: number, extra: Record<string, string> = {}, signal?: AbortSignal): Promise<void> {
  const boundary = `----engine${randomBytes(12).toString('hex')}`;
  const fields = { ...form.fields, ...extra, key };
  let head = '';
  for (const [name, value] of Object.entries(fields)) head += `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quote(key.slice(key.lastIndexOf('/') + 1))}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const url = new URL(form.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  await new Promise<void>((resolve, reject) => {
    // Storage may answer (a refusal) before the whole body is sent, then close: its answer wins over the broken pipe.
    let answered = false;
    const req = send(
      url,
      {
        method: 'POST',
        signal,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': Buffer.byteLength(head) + size + Buffer.byteLength(tail) },
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.length < 64 && chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) return resolve();
          const text = Buffer.concat(chunks).toString('utf8');
          const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
          const detail = /<Message>([^<]+)<\/Message>/.exec(text)?.[1];
          reject(new FormPostError(status, code, `storage refused the upload (${status}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : ''})`));
        });
      },
    );
    req.on('error', (err) => {
      if (!answered) setTimeout(() => answered || reject(err), 200);
    });
    req.write(head);
    body.on('error', (err) => req.destroy(err));
    body.on('end', () => req.end(tail));
    body.pipe(req, { end: false });
  });
}

/** `body` as a stream with its length (a Buffer or string: its bytes). */
export function sized(body: Readable | Buffer | string, size?: number): { stream: Readable; size: number } | undefined {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    return { stream: Readable.from([bytes]), size: bytes.length };
  }
  return size === undefined ? undefined : { stream: body, size };
}
