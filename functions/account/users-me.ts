/** GET /v2/users/me: the account the API key belongs to. */
import { apiUrlOf } from '#lib/http/api-base.js';
import { creditsView } from '#lib/file-api/account/credits.js';
import { Users, type UserRecord } from '#lib/access/auth/users.js';
import { config } from '#lib/kernel/config.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { stateStore } from '#lib/wiring/clients.js';
import { toIsoSeconds } from '#lib/kernel/time.js';

let users: Users | undefined;

export function userView(user: UserRecord, baseUrl: string) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    created_at: toIsoSeconds(user.createdAt),
    ...creditsView(user),
    /** Our extension: the account's fixed processing region, null when each request picks one. */
    region: user.region ?? null,
    links: { self: `${baseUrl}/v2/users/${user.id}` },
  };
}

export const handler = fileApiRoute({ scope: 'user.read', body: 'none' }, async (req) => {
  const c = config();
  users ??= new Users(stateStore(), { username: c.ACCOUNT_USERNAME, email: c.ACCOUNT_EMAIL, credits: c.ACCOUNT_CREDITS });
  const user = await users.get(req.principal.userId);
  return json(200, { data: userView(user, apiUrlOf(req)) });
});
