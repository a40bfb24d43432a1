/**
 * The table that maps caller addresses to processing regions (REGION_ADDRESS_RANGES), e.g.
 * `10.0.0.0/8=us-east,2001:db8::/32=eu-central`: comma-separated `range=region` entries, a range being
 * an IPv4 or IPv6 address with an optional prefix length (a lone address is /32 or /128).
 *
 * Addresses are compared as addresses (`node:net` BlockList), never as strings, so IPv4-mapped IPv6
 * callers (`::ffff:10.1.2.3`) match IPv4 ranges. The most specific range that holds the address wins;
 * among equally specific ones, the first written.
 */
import { BlockList, isIP } from 'node:net';

export interface AddressRange {
  /** As written, for messages. */
  range: string;
  region: string;
  prefix: number;
  list: BlockList;
}

export class AddressTableError extends Error {
  override readonly name = 'AddressTableError';
}

/** One `range=region` entry; throws AddressTableError naming the entry. */
function parseEntry(entry: string): AddressRange {
  const eq = entry.lastIndexOf('=');
  if (eq < 0) throw new AddressTableError(`"${entry}" is not range=region`);
  const range = entry.slice(0, eq).trim();
  const region = entry.slice(eq + 1).trim();
  const slash = range.indexOf('/');
  const address = slash < 0 ? range : range.slice(0, slash);
  const version = isIP(address);
  if (!version) throw new AddressTableError(`"${range}" is not an IPv4 or IPv6 address or range`);
  const max = version === 4 ? 32 : 128;
  const bits = slash < 0 ? String(max) : range.slice(slash + 1);
  const prefix = Number(bits);
  if (bits === '' || !Number.isInteger(prefix) || prefix < 0 || prefix > max || String(prefix) !== bits) {
    throw new AddressTableError(`"${range}": the prefix length is a whole number from 0 to ${max}`);
  }
  if (!region) throw new AddressTableError(`"${entry}" names no region`);
  const list = new BlockList();
  list.addSubnet(address, prefix, version === 4 ? 'ipv4' : 'ipv6');
  return { range, region, prefix, list };
}

/** The table from its setting, most specific ranges first (a stable sort keeps the written order among equals). */
export function parseAddressTable(text: string): AddressRange[] {
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .map(parseEntry);
  return entries.sort((a, b) => b.prefix - a.prefix);
}

/** The region of the first (most specific) range holding `address`; undefined for none or a value that is no address. */
export function regionOfAddress(table: readonly AddressRange[], address: string | undefined): string | undefined {
  if (!address) return undefined;
  const version = isIP(address);
  if (!version) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  return table.find((r) => r.list.check(address, family))?.region;
}
