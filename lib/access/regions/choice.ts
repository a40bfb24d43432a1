/**
 * Where a new job or standalone task runs and keeps its files. In this order:
 * 1. the region the base forces (`/{region}/v2/…`, the SDK's regional host);
 * 2. the account's fixed region (`PATCH /v2/users/me` `region`, `npm run users -- region`);
 * 3. the caller's address, looked up in REGION_ADDRESS_RANGES;
 * 4. REGION_DEFAULT.
 * A value that is no longer one of REGIONS (a fixed region removed from the list) is passed over.
 */
import { regionOfAddress, type AddressRange } from '../../kernel/address-table.js';

export interface RegionSettings {
  regions: readonly string[];
  addressTable: readonly AddressRange[];
  defaultRegion: string;
}

export interface RegionRequest {
  /** The region the request's base forces. */
  forced?: string;
  /** The account's fixed region. */
  fixed?: string | null;
  /** The caller's address as the gateway saw it. */
  sourceIp?: string;
}

export type RegionReason = 'base' | 'account' | 'address' | 'default';

export function chooseRegion(settings: RegionSettings, request: RegionRequest): { region: string; reason: RegionReason } {
  const known = (r: string | null | undefined): r is string => typeof r === 'string' && settings.regions.includes(r);
  if (known(request.forced)) return { region: request.forced, reason: 'base' };
  if (known(request.fixed)) return { region: request.fixed, reason: 'account' };
  const byAddress = regionOfAddress(settings.addressTable, request.sourceIp);
  if (known(byAddress)) return { region: byAddress, reason: 'address' };
  return { region: settings.defaultRegion, reason: 'default' };
}
