/**
 * GET /v2/users/me/webhooks/signing-secret: the secret that signs the deliveries to jobs' dynamic
 * `webhook_url`s (endpoints from POST /v2/webhooks have their own). Made on first use.
 */
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { webhookStore } from '#lib/wiring/webhooks.js';

export const handler = fileApiRoute({ scope: 'webhook.read', body: 'none' }, async (req) => {
  return json(200, { data: { signing_secret: await webhookStore().accountSecret(req.principal.userId) } });
});
