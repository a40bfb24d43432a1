/** The `CloudConvert-Signature` header: lower-case hex HMAC-SHA256 of the exact body bytes, keyed with the signing secret. */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'CloudConvert-Signature';

export const signBody = (body: string | Buffer, secret: string): string => createHmac('sha256', secret).update(body).digest('hex');
