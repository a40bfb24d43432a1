/**
 * DELETE /v2/users/me/api-keys/{id} (our extension; scope user.write): revokes one of the caller's
 * keys (204; again for a key already revoked, which keeps its first revocation time). Another user's
 * key and an unknown id get the same 404; so does a live key asked through the sandbox.
 */
import * as z from 'zod';
import { notFound } from '#lib/kernel/errors.js';
import { apiKeys, fileApiRoute } from '#lib/wiring/file-api.js';
import { noContent } from '#lib/http/types.js';

const params = z.object({ id: z.string().regex(/^[0-9a-f]{16}$/, 'must be an API key id (16 hex characters)') });

export const handler = fileApiRoute({ scope: 'user.write', body: 'none', schemas: { params } }, async (req) => {
  const { userId, sandbox } = req.principal;
  const revoked = await apiKeys().revokeOf(userId, req.params.id, (k) => !sandbox || k.sandbox === true);
  if (!revoked) throw notFound(`No API key with id ${req.params.id}.`);
  req.log.info('api key revoked', { revokedKeyId: revoked.keyId });
  return noContent();
});
