/** DELETE /v2/signed-urls/{id}: removes one of the caller's signed-URL bases; its URLs stop working at once. */
import * as z from 'zod';
import { notFound } from '#lib/kernel/errors.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { noContent } from '#lib/http/types.js';
import { signedUrlStore } from '#lib/wiring/signed-urls.js';
import { owns } from '#lib/file-api/tasks/http.js';

const params = z.object({ id: z.string().uuid('must be a signed URL id') });

export const handler = fileApiRoute({ scope: 'task.write', body: 'none', schemas: { params } }, async (req) => {
  const store = await signedUrlStore();
  const record = await store.get(req.params.id);
  if (!record || !owns(req.principal, record)) throw notFound(`No signed URL with id ${req.params.id}.`);
  await store.delete(record.id);
  return noContent();
});
