/** The address policy for requests made on a user's behalf, from the settings (import/url applies the same). */
import type { Config } from '../../kernel/config.js';
import type { AddressPolicy } from '../../adapters/net/address-policy.js';

export const policyOf = (config: Pick<Config, 'ALLOW_LOOPBACK_FETCH' | 'FETCH_ALLOW_HOSTS'>): AddressPolicy => ({
  allowLoopback: config.ALLOW_LOOPBACK_FETCH,
  allowHosts: config.FETCH_ALLOW_HOSTS,
});
