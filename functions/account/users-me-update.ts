/**
 * PATCH /v2/users/me (our extension; scope user.write): changes the account's `username`, `email`
 * and/or fixed processing `region` (one of REGIONS, or null to clear it). Each is validated (422
 * under its field); an e-mail address another account has is a 422 under `email`. Answers like
 * GET /v2/users/me.
 */
import { apiUrlOf } from '#lib/http/api-base.js';
import * as z from 'zod';
import { AccountInputError } from '#lib/access/auth/accounts.js';
import { invalid } from '#lib/kernel/errors.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { config } from '#lib/kernel/config.js';
import { accounts } from '#lib/wiring/auth.js';
import { users } from '#lib/wiring/account.js';
import { stateStore } from '#lib/wiring/clients.js';
import { parseFixedRegion, RegionInputError, setFixedRegion } from '#lib/access/regions/user-region.js';
import { userView } from './users-me.js';

const body = z
  .object({
    username: z.string({ message: 'must be a string' }).optional(),
    email: z.string({ message: 'must be a string' }).optional(),
    /** The fixed processing region: one of REGIONS, or null for none (checked below against REGIONS). */
    region: z.union([z.string(), z.null()], { message: 'must be a region name or null' }).optional(),
  })
  .strict()
  .refine((b) => b.username !== undefined || b.email !== undefined || b.region !== undefined, {
    message: 'give username, email and/or region',
    path: ['body'],
  });

export const handler = fileApiRoute({ scope: 'user.write', bodyRequired: true, schemas: { body } }, async (req) => {
  const { region, ...names } = req.body;
  let fixed: string | null | undefined;
  try {
    fixed = region === undefined ? undefined : parseFixedRegion(region, config().REGIONS);
  } catch (err) {
    if (err instanceof RegionInputError) throw invalid('The given data was invalid.', { region: [err.message] });
    throw err;
  }
  try {
    let user = names.username !== undefined || names.email !== undefined ? await accounts().update(req.principal.userId, names) : undefined;
    if (fixed !== undefined) user = await setFixedRegion({ state: stateStore(), users: users() }, req.principal.userId, fixed);
    user ??= await users().get(req.principal.userId);
    req.log.info('account updated', { userId: user.id, fields: Object.keys(req.body) });
    return json(200, { data: userView(user, apiUrlOf(req)) });
  } catch (err) {
    if (err instanceof AccountInputError) throw invalid('The given data was invalid.', { [err.field]: [err.message] });
    throw err;
  }
});
