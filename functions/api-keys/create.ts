/**
 * POST /v2/users/me/api-keys (our extension; scope user.write) `{"name", "scopes": [...], "sandbox"?}`:
 * a new API key of the caller. 201 with the key's record and `key`, the secret, in this answer only.
 * The rules (lib/file-api/api-keys/rules.ts): scopes within the caller's, a sandbox credential makes
 * sandbox keys, third-party OAuth applications make none (403), at most MAX_API_KEYS_PER_USER live keys.
 */
import * as z from 'zod';
import { config } from '#lib/kernel/config.js';
import { invalid } from '#lib/kernel/errors.js';
import { apiKeys, fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { InvalidKeyInputError, parseScopes } from '#lib/access/auth/keys.js';
import { apiKeyView, assertMayCreateKeys, checkKeyCount, checkNewKey } from '#lib/file-api/api-keys/rules.js';

const body = z
  .object({
    name: z.string({ message: 'must be a string' }).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
    scopes: z.array(z.string({ message: 'must be a list of scopes' }), { message: 'must be a list of scopes' }).min(1, 'name at least one scope'),
    sandbox: z.boolean({ message: 'must be true or false' }).optional(),
  })
  .strict();

export const handler = fileApiRoute({ scope: 'user.write', bodyRequired: true, schemas: { body } }, async (req) => {
  assertMayCreateKeys(req.principal);
  let scopes;
  try {
    scopes = parseScopes(req.body.scopes);
  } catch (err) {
    if (err instanceof InvalidKeyInputError) throw invalid('The given data was invalid.', { scopes: [err.message] });
    throw err;
  }
  const { sandbox } = checkNewKey(req.principal, { scopes, sandbox: req.body.sandbox });
  const keys = apiKeys();
  const live = (await keys.allOf(req.principal.userId)).filter((k) => !k.revokedAt).length;
  checkKeyCount(live, config().MAX_API_KEYS_PER_USER);
  const { key, record } = await keys.create({ userId: req.principal.userId, name: req.body.name, scopes, sandbox });
  req.log.info('api key created', { newKeyId: record.keyId, scopes, sandbox });
  return json(201, { data: { ...apiKeyView(record), key } });
});
