/**
 * An account's fixed region (`region` on the user record): when set, every job and task the account
 * creates at the plain or sandbox base runs there, wherever the caller is. A regional base still
 * forces its own region (lib/access/regions/choice.ts). Set with `PATCH /v2/users/me` or
 * `npm run users -- region <id|email> <region|none>`.
 */
import { userKey, type UserRecord, type Users } from '../auth/users.js';
import type { StateStore } from '../../adapters/state/port.js';

/** A fixed region that is not one of REGIONS; `field` is where the client gave it. */
export class RegionInputError extends Error {
  override readonly name = 'RegionInputError';
}

/** `region` as given: one of `regions`, or null (or `none` on the command line) to clear it. */
export function parseFixedRegion(value: unknown, regions: readonly string[], opts: { none?: boolean } = {}): string | null {
  if (value === null || (opts.none && value === 'none')) return null;
  if (typeof value === 'string' && regions.includes(value)) return value;
  throw new RegionInputError(`must be one of ${regions.join(', ')}${opts.none ? ' or none' : ', or null'}`);
}

/** Sets (or with null clears) the account's fixed region; the built-in account is made first when it has no record yet. */
export async function setFixedRegion(deps: { state: StateStore; users: Pick<Users, 'get'> }, userId: number, region: string | null): Promise<UserRecord> {
  await deps.users.get(userId);
  const change = region === null ? { remove: ['region'] } : { set: { region } };
  return deps.state.update<UserRecord>(userKey(userId), change, { condition: { exists: true } });
}

/** The account's fixed region, if any (no record yet: none). */
export async function fixedRegionOf(state: StateStore, userId: number): Promise<string | undefined> {
  const user = await state.get<UserRecord>(userKey(userId));
  return typeof user?.region === 'string' ? user.region : undefined;
}
