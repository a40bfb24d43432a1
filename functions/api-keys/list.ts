/**
 * GET /v2/users/me/api-keys (our extension; scope user.read): the caller's API keys, revoked ones
 * included, newest first; `page`, `per_page`. A sandbox credential sees the sandbox keys only. Never
 * a secret or its hash: `id` is the key's public id (what `npm run keys -- list` shows).
 */
import { apiKeys, fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { collectPage, listBody, pageQuery } from '#lib/file-api/tasks/http.js';
import { apiKeyView } from '#lib/file-api/api-keys/rules.js';
import type { ApiKeyRecord } from '#lib/access/auth/keys.js';

export const handler = fileApiRoute({ scope: 'user.read', body: 'none', schemas: { query: pageQuery } }, async (req) => {
  const { page, per_page: perPage } = req.query;
  const { items, hasMore } = await collectPage<ApiKeyRecord>(
    (cursor) => apiKeys().listOf(req.principal.userId, { limit: 100, cursor }),
    (k) => !req.principal.sandbox || k.sandbox === true,
    page,
    perPage,
  );
  return json(200, listBody(req, items.map(apiKeyView), page, perPage, hasMore));
});
