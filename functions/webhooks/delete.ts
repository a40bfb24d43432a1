/** DELETE /v2/webhooks/{id}: removes one of the caller's webhook endpoints; queued deliveries to it are dropped. */
import * as z from 'zod';
import { notFound } from '#lib/kernel/errors.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { noContent } from '#lib/http/types.js';
import { owns } from '#lib/file-api/tasks/http.js';
import { webhookStore } from '#lib/wiring/webhooks.js';

const params = z.object({ id: z.string().uuid('must be a webhook id') });

export const handler = fileApiRoute({ scope: 'webhook.write', body: 'none', schemas: { params } }, async (req) => {
  const store = webhookStore();
  const hook = await store.get(req.params.id);
  if (!hook || !owns(req.principal, hook)) throw notFound(`No webhook with id ${req.params.id}.`);
  await store.delete(hook.id);
  return noContent();
});
