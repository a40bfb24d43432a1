/**
 * ANY /v1/{proxy+} — the Rapid Migration Assessment v1 REST surface (locations, annotations,
 * collectors, long-running operations). One function behind a greedy route; the method is found in
 * code from the HTTP verb and path (functions/migration/methods.ts).
 */
import { GOOGLE_SCOPES } from '#lib/access/auth/scopes.js';
import { SERVICE } from '#lib/google/migration/model.js';
import { migrationService } from '#lib/wiring/migration.js';
import { googleRoute } from '#lib/wiring/google-route.js';
import { createRouter } from '#lib/google/router.js';
import { responseWire } from '#lib/google/wire.js';
import { METHODS } from './methods.js';

const router = createRouter(METHODS);

/** The only scope of the API. */
export const MIGRATION_SCOPES = GOOGLE_SCOPES.filter((s) => s.endsWith('/cloud-platform'));

export const handler = googleRoute({ service: SERVICE, scopes: MIGRATION_SCOPES }, async (req, requested) => {
  const { rule, vars } = router.match(req.method, req.path);
  req.log.debug('method', { rpc: rule.id });
  // Before the method runs: a refused field mask changes nothing.
  const wire = responseWire(requested, rule.response);
  return rule.run(vars, { req, wire, service: migrationService() });
});
