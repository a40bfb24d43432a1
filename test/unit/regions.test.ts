import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '#lib/kernel/config.js';
import { AddressTableError, parseAddressTable, regionOfAddress } from '#lib/kernel/address-table.js';
import { chooseRegion } from '#lib/access/regions/choice.js';
import { parseFixedRegion, RegionInputError } from '#lib/access/regions/user-region.js';

const minimal = { STATE_TABLE: 't', FILES_BUCKET: 'files', IMPORT_QUEUE: 'i', PROCESS_QUEUE: 'p', EXPORT_QUEUE: 'e', OPERATIONS_QUEUE: 'o', WEBHOOKS_QUEUE: 'w' };
const REGIONS = ['eu-central', 'us-east'];

describe('the address table of REGION_ADDRESS_RANGES', () => {
  const table = parseAddressTable('10.0.0.0/8=us-east, 10.20.0.0/16=eu-central, 2001:db8::/32=eu-central, 2001:db8:ff::/48=us-east, 192.0.2.7=us-east');

  it('places IPv4 and IPv6 callers by the range that holds them', () => {
    expect(regionOfAddress(table, '10.1.2.3')).toBe('us-east');
    expect(regionOfAddress(table, '2001:db8:1::5')).toBe('eu-central');
    expect(regionOfAddress(table, '192.0.2.7')).toBe('us-east');
    expect(regionOfAddress(table, '192.0.2.8')).toBeUndefined();
  });

  it('lets the most specific range win, whatever the order written', () => {
    expect(regionOfAddress(table, '10.20.5.5')).toBe('eu-central');
    expect(regionOfAddress(table, '2001:db8:ff::1')).toBe('us-east');
  });

  it('matches IPv4-mapped IPv6 callers against the IPv4 ranges', () => {
    expect(regionOfAddress(table, '::ffff:10.1.2.3')).toBe('us-east');
    expect(regionOfAddress(table, '::ffff:10.20.1.1')).toBe('eu-central');
  });

  it('places no caller whose address is missing or is not an address', () => {
    for (const odd of [undefined, '', 'localhost', '10.1.2.3/8', '010.1.2.3', '10.1.2', ' 10.1.2.3']) {
      expect(regionOfAddress(table, odd), String(odd)).toBeUndefined();
    }
    expect(regionOfAddress(parseAddressTable(''), '10.1.2.3')).toBeUndefined();
  });

  it('refuses entries that are not range=region with a valid address and prefix length', () => {
    for (const bad of ['10.0.0.0/8', '10.0.0.0/33=us-east', '10.0.0.0/=us-east', '10.0.0.0/8x=us-east', '10.0.0.0/08=us-east', 'example.com=us-east', '::1/129=eu-central', '10.0.0.0/8=']) {
      expect(() => parseAddressTable(bad), bad).toThrow(AddressTableError);
    }
  });
});

describe('the region of a new job or task', () => {
  const settings = { regions: REGIONS, addressTable: parseAddressTable('127.0.0.0/8=us-east,::1=us-east'), defaultRegion: 'eu-central' };

  it('is the region the base forces, before the account and the address', () => {
    expect(chooseRegion(settings, { forced: 'eu-central', fixed: 'us-east', sourceIp: '127.0.0.1' })).toEqual({ region: 'eu-central', reason: 'base' });
  });

  it('else the account fixed region, wherever the caller is', () => {
    expect(chooseRegion(settings, { fixed: 'eu-central', sourceIp: '127.0.0.1' })).toEqual({ region: 'eu-central', reason: 'account' });
  });

  it('else the region of the caller address, else the default', () => {
    expect(chooseRegion(settings, { sourceIp: '::1' })).toEqual({ region: 'us-east', reason: 'address' });
    expect(chooseRegion(settings, { fixed: null, sourceIp: '203.0.113.9' })).toEqual({ region: 'eu-central', reason: 'default' });
    expect(chooseRegion(settings, {})).toEqual({ region: 'eu-central', reason: 'default' });
  });

  it('passes over a fixed region that is no longer one of REGIONS', () => {
    expect(chooseRegion(settings, { fixed: 'ap-south', sourceIp: '127.0.0.1' })).toEqual({ region: 'us-east', reason: 'address' });
  });
});

describe('the region settings', () => {
  it('default to no ranges, the first region and FILES_BUCKET for every region', () => {
    const c = parseConfig(minimal);
    expect(c.REGION_DEFAULT).toBe('eu-central');
    expect(c.REGION_ADDRESS_RANGES).toEqual([]);
    expect(c.REGION_BUCKETS).toEqual({});
    expect(parseConfig({ ...minimal, REGIONS: 'us-east,eu-central' }).REGION_DEFAULT).toBe('us-east');
  });

  it('read each region bucket, with its AWS region when given', () => {
    const c = parseConfig({ ...minimal, REGION_BUCKETS: 'eu-central=files-eu, us-east=files-us@us-east-1' });
    expect(c.REGION_BUCKETS).toEqual({ 'eu-central': { bucket: 'files-eu' }, 'us-east': { bucket: 'files-us', awsRegion: 'us-east-1' } });
  });

  it('refuse a region that is not one of REGIONS, naming the setting', () => {
    expect(() => parseConfig({ ...minimal, REGION_DEFAULT: 'ap-south' })).toThrow(/REGION_DEFAULT: ap-south is not one of REGIONS/);
    expect(() => parseConfig({ ...minimal, REGION_ADDRESS_RANGES: '10.0.0.0/8=ap-south' })).toThrow(/REGION_ADDRESS_RANGES: 10.0.0.0\/8: ap-south/);
    expect(() => parseConfig({ ...minimal, REGION_BUCKETS: 'ap-south=b' })).toThrow(/REGION_BUCKETS: ap-south/);
    expect(() => parseConfig({ ...minimal, REGION_ADDRESS_RANGES: '10.0.0.0/40=us-east' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...minimal, REGION_BUCKETS: 'us-east' })).toThrow(/REGION_BUCKETS/);
  });
});

describe('an account fixed region as given', () => {
  it('is one of REGIONS or null; the command line says none', () => {
    expect(parseFixedRegion('us-east', REGIONS)).toBe('us-east');
    expect(parseFixedRegion(null, REGIONS)).toBeNull();
    expect(parseFixedRegion('none', REGIONS, { none: true })).toBeNull();
    expect(() => parseFixedRegion('none', REGIONS)).toThrow(RegionInputError);
    expect(() => parseFixedRegion('mars', REGIONS)).toThrow('must be one of eu-central, us-east, or null');
    expect(() => parseFixedRegion(3, REGIONS)).toThrow(RegionInputError);
  });
});
