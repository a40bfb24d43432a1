/** The processing region of a request that creates a job or task (lib/access/regions/choice.ts), with this instance's settings. */
import { config } from '../kernel/config.js';
import type { ApiBase } from '../http/api-base.js';
import { chooseRegion } from '../access/regions/choice.js';
import { fixedRegionOf } from '../access/regions/user-region.js';
import { stateStore } from './clients.js';

export async function requestRegion(req: { apiBase?: ApiBase; sourceIp?: string; principal: { userId: number; accountRegion?: string | null } }): Promise<string> {
  const c = config();
  const settings = { regions: c.REGIONS, addressTable: c.REGION_ADDRESS_RANGES, defaultRegion: c.REGION_DEFAULT };
  const forced = req.apiBase?.region;
  // A regional base decides alone: no need to read the account; nor when authentication has just read it.
  const known = req.principal.accountRegion;
  const fixed = forced ? undefined : known !== undefined ? (known ?? undefined) : await fixedRegionOf(stateStore(), req.principal.userId);
  return chooseRegion(settings, { forced, fixed, sourceIp: req.sourceIp }).region;
}
