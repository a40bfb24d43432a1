/** GET /s/{id}?job=…&cache_key=…&s=…: a signed URL runs its job and redirects to the first export (lib/signed-urls/run.ts). */
import { renderFileApiError } from '#lib/http/dialects.js';
import { route } from '#lib/http/route.js';
import { signedUrlRequest } from '#lib/signed-urls/run.js';

export const handler = route({ render: renderFileApiError, body: 'none' }, signedUrlRequest);
