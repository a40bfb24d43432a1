/** The accounts, their credits and their usage, for one function instance. */
import { Credits } from '../file-api/account/credits.js';
import { Usage } from '../file-api/account/usage.js';
import { Users } from '../access/auth/users.js';
import { config } from '../kernel/config.js';
import { once, stateStore } from './clients.js';

export const users = once(() => {
  const c = config();
  return new Users(stateStore(), { username: c.ACCOUNT_USERNAME, email: c.ACCOUNT_EMAIL, credits: c.ACCOUNT_CREDITS });
});

export const credits = once(() => new Credits({ state: stateStore(), users: users() }));

export const usage = once(() => new Usage(stateStore(), config().USAGE_RETENTION_DAYS));
