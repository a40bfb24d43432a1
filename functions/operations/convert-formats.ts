/** GET /v2/convert/formats: discovery restricted to `convert` (same filters and includes as /v2/operations). */
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { discover, discoveryQuery, discoveryResponse } from '#lib/file-api/operations/discovery.js';

export const handler = fileApiRoute({ scope: 'task.read', body: 'none', schemas: { query: discoveryQuery } }, async (req) =>
  discoveryResponse(discover(req.query, { restrictTo: 'convert' }), req.headers['accept-encoding']),
);
