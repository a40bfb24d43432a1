/**
 * DELETE /v2/users/me/authorizations/{client_id} (our extension; scope user.write): revokes the user's
 * authorization of an application; every code and token it was given stops working. 204; 404 when the
 * user has not authorized that client (or it is one of the console's own, ended by signing out).
 */
import * as z from 'zod';
import { notFound } from '#lib/kernel/errors.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { noContent } from '#lib/http/types.js';
import { tokenStore } from '#lib/wiring/auth.js';
import { isConsoleClient } from '#lib/web/console/token.js';

const params = z.object({ client_id: z.string().regex(/^[0-9a-f]{24}$/, 'must be an OAuth client id (24 hexadecimal characters)') });

export const handler = fileApiRoute({ scope: 'user.write', body: 'none', schemas: { params } }, async (req) => {
  const clientId = req.params.client_id;
  if (isConsoleClient(clientId) || !(await tokenStore().revokeGrant(req.principal.userId, clientId))) {
    throw notFound(`You have not authorized an application with client id ${clientId}.`);
  }
  req.log.info('oauth grant revoked through the API', { clientId });
  return noContent();
});
