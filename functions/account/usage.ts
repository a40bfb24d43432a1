/**
 * GET /v2/users/me/usage (our extension): the account's credits and tasks per day and per operation,
 * `from`/`to` (`YYYY-MM-DD`, UTC, inclusive; default the last 30 days, at most 366).
 */
import * as z from 'zod';
import { usageRange } from '#lib/file-api/account/usage.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { usage } from '#lib/wiring/account.js';

export const handler = fileApiRoute(
  { scope: 'user.read', body: 'none', schemas: { query: z.looseObject({ from: z.string().optional(), to: z.string().optional() }) } },
  async (req) => {
    const { from, to } = usageRange(req.query);
    return json(200, { data: await usage().report(req.principal.userId, from, to) });
  },
);
