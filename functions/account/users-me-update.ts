/**
 * PATCH /v2/users/me (our extension; scope user.write): changes the account's `username` and/or
 * `email`. Each is validated (422 under its field); an e-mail address another account has is a 422
 * under `email`. Answers like GET /v2/users/me.
 */
import { apiUrlOf } from '#lib/http/api-base.js';
import * as z from 'zod';
import { AccountInputError } from '#lib/auth/accounts.js';
import { invalid } from '#lib/errors.js';
import { fileApiRoute } from '#lib/http/file-api.js';
import { json } from '#lib/http/types.js';
import { accounts } from '#lib/platform/auth.js';
import { userView } from './users-me.js';

const body = z
  .object({
    username: z.string({ message: 'must be a string' }).optional(),
    email: z.string({ message: 'must be a string' }).optional(),
  })
  .strict()
  .refine((b) => b.username !== undefined || b.email !== undefined, { message: 'give username and/or email', path: ['body'] });

export const handler = fileApiRoute({ scope: 'user.write', bodyRequired: true, schemas: { body } }, async (req) => {
  try {
    const user = await accounts().update(req.principal.userId, req.body);
    req.log.info('account updated', { userId: user.id, fields: Object.keys(req.body) });
    return json(200, { data: userView(user, apiUrlOf(req)) });
  } catch (err) {
    if (err instanceof AccountInputError) throw invalid('The given data was invalid.', { [err.field]: [err.message] });
    throw err;
  }
});
