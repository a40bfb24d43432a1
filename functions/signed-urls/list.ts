/** GET /v2/signed-urls: the caller's signed-URL bases, newest first (`page`, `per_page`); secrets are not shown again. */
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { signedUrlStore } from '#lib/wiring/signed-urls.js';
import type { SignedUrlRecord } from '#lib/file-api/signed-urls/store.js';
import { signedUrlView } from '#lib/file-api/signed-urls/view.js';
import { collectPage, listBody, pageQuery } from '#lib/file-api/tasks/http.js';

export const handler = fileApiRoute({ scope: 'task.read', body: 'none', schemas: { query: pageQuery } }, async (req) => {
  const store = await signedUrlStore();
  const { page, per_page: perPage } = req.query;
  const { items, hasMore } = await collectPage<SignedUrlRecord>(
    (cursor) => store.list(req.principal.userId, { limit: 100, cursor }, req.principal.sandbox),
    () => true,
    page,
    perPage,
  );
  return json(200, listBody(req, items.map((r) => signedUrlView(r)), page, perPage, hasMore));
});
