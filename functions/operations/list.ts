/**
 * GET /v2/operations: what this installation can run, one row per operation, format pair and engine;
 * `filter[operation|input_format|output_format|engine|engine_version]`, `include=options,engine_versions`,
 * `alternatives=true` for the non-default engines too.
 */
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { discover, discoveryQuery, discoveryResponse } from '#lib/file-api/operations/discovery.js';

export const handler = fileApiRoute({ scope: 'task.read', body: 'none', schemas: { query: discoveryQuery } }, async (req) =>
  discoveryResponse(discover(req.query), req.headers['accept-encoding']),
);
