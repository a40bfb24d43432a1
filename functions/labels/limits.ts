/**
 * GET /v2beta/limits/label?name=limits/label — Drive Labels `LabelService.GetLabelLimits`: the
 * structural limits of a label, from one constant (lib/google/label-limits.ts).
 */
import { GOOGLE_SCOPES } from '#lib/access/auth/scopes.js';
import { ApiError } from '#lib/kernel/errors.js';
import { LABEL_LIMITS, LABEL_LIMITS_MESSAGE, LABEL_LIMITS_NAME } from '#lib/google/label-limits.js';
import { googleRoute } from '#lib/wiring/google-route.js';
import { googleJson, param, responseWire } from '#lib/google/wire.js';

/** Any one of the four drive.labels scopes. */
export const LABEL_SCOPES = GOOGLE_SCOPES.filter((s) => s.includes('.labels'));

const invalidName = (message: string, violation: string) => new ApiError('INVALID_ARGUMENT', message, { fields: { name: [violation] } });

export const handler = googleRoute({ service: 'drivelabels.googleapis.com', scopes: LABEL_SCOPES, body: 'none' }, async (req, requested) => {
  const wire = responseWire(requested, LABEL_LIMITS_MESSAGE);
  const name = param(req.searchParams, 'name');
  if (!name) throw invalidName('Missing required field: name.', `required; the only label limits resource is "${LABEL_LIMITS_NAME}"`);
  if (name !== LABEL_LIMITS_NAME) {
    throw invalidName(`Invalid resource name "${name}".`, `must be "${LABEL_LIMITS_NAME}"`);
  }
  return googleJson(wire, LABEL_LIMITS);
});
