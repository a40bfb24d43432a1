/**
 * POST /v2/webhooks: a webhook endpoint for `events`, optionally only for the jobs and tasks created
 * with some of the user's API keys (`api_key_ids`, the ids `npm run keys -- list` shows). The answer
 * holds the endpoint's `signing_secret`.
 */
import * as z from 'zod';
import { config } from '#lib/kernel/config.js';
import { invalid } from '#lib/kernel/errors.js';
import { apiUrlOf } from '#lib/http/api-base.js';
import { apiKeys, fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { userFetchPolicy } from '#lib/adapters/net/address-policy.js';
import { checkKeptUrl, FetchFailedError } from '#lib/adapters/net/guarded-fetch.js';
import { WEBHOOK_EVENTS, webhookView } from '#lib/file-api/webhooks/model.js';
import { webhookSettings } from '#lib/wiring/webhooks.js';

const body = z.object({
  url: z
    .string()
    .url('must be an absolute http(s) URL')
    .max(2048)
    .refine((u) => /^https?:\/\//i.test(u), 'must be an http or https URL'),
  events: z
    .array(z.enum(WEBHOOK_EVENTS, { message: `must be one of ${WEBHOOK_EVENTS.join(', ')}` }))
    .min(1, `name at least one event: ${WEBHOOK_EVENTS.join(', ')}`),
  api_key_ids: z.array(z.string().regex(/^[0-9a-f]{16}$/, 'must be an API key id (16 hex characters)')).optional(),
});

export const handler = fileApiRoute({ scope: 'webhook.write', bodyRequired: true, schemas: { body } }, async (req) => {
  const c = config();
  try {
    await checkKeptUrl(req.body.url, userFetchPolicy(c));
  } catch (err) {
    if (err instanceof FetchFailedError) throw invalid('The given data was invalid.', { url: [err.message] });
    throw err;
  }
  const keyIds = req.body.api_key_ids ?? [];
  if (keyIds.length) {
    const mine = new Set((await apiKeys().allOf(req.principal.userId)).filter((k) => !k.revokedAt && (k.sandbox === true) === req.principal.sandbox).map((k) => k.keyId));
    const unknown = keyIds.filter((id) => !mine.has(id));
    if (unknown.length) throw invalid('The given data was invalid.', { api_key_ids: unknown.map((id) => `There is no API key with id ${id}.`) });
  }
  const hook = await webhookSettings().create({ userId: req.principal.userId, url: req.body.url, events: req.body.events, keyIds, sandbox: req.principal.sandbox });
  req.log.info('webhook created', { webhookId: hook.id, events: hook.events });
  return json(201, { data: webhookView(hook, apiUrlOf(req)) });
});
