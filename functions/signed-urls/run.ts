/** GET /s/{id}?job=…&cache_key=…&s=…: a signed URL runs its job and redirects to the first export (lib/wiring/signed-url-run.ts). */
import { renderFileApiError } from '#lib/http/dialects.js';
import { route } from '#lib/http/middleware/route.js';
import { signedUrlRequest } from '#lib/wiring/signed-url-run.js';

export const handler = route({ render: renderFileApiError, body: 'none' }, signedUrlRequest);
