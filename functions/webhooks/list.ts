/** GET /v2/users/me/webhooks: the caller's webhook endpoints, newest first; `filter[url]`, `page`, `per_page`. */
import * as z from 'zod';
import { apiUrlOf } from '#lib/http/api-base.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { collectPage, listBody, pageQuery } from '#lib/file-api/tasks/http.js';
import { webhookView, type WebhookRecord } from '#lib/file-api/webhooks/model.js';
import { webhookStore } from '#lib/wiring/webhooks.js';

const query = pageQuery.extend({ 'filter[url]': z.string().optional() });

export const handler = fileApiRoute({ scope: 'webhook.read', body: 'none', schemas: { query } }, async (req) => {
  const { page, per_page: perPage } = req.query;
  const url = req.query['filter[url]'];
  const { items, hasMore } = await collectPage<WebhookRecord>(
    (cursor) => webhookStore().list(req.principal.userId, { limit: 100, cursor }, req.principal.sandbox),
    (hook) => url === undefined || hook.url === url,
    page,
    perPage,
  );
  return json(200, listBody(req, items.map((h) => webhookView(h, apiUrlOf(req))), page, perPage, hasMore));
});
