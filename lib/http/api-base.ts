/**
 * The bases the file API answers under. The official SDKs pick a host name (`api.`, `sync.api.`,
 * `api.sandbox.`, `{region}.api.`); this service serves them as path prefixes of one host:
 *
 * | SDK host                          | here                                  |
 * |-----------------------------------|---------------------------------------|
 * | api / sync.api                    | `/v2`, `/sync/v2`                     |
 * | api.sandbox / sync.api.sandbox    | `/sandbox/v2`, `/sandbox/sync/v2`     |
 * | {region}.api / {region}.sync.api  | `/{region}/v2`, `/{region}/sync/v2`   |
 *
 * The gateway routes every prefixed form to the same function as the plain one (`/{apiBase}/v2/…`
 * in serverless.yml); this module says which base a request came through, or that the prefix is
 * none of ours (404).
 */

export interface ApiBase {
  /** What precedes `/v2` or `/sync/v2` in the path: `''`, `/sandbox` or `/{region}`. */
  prefix: string;
  /** The sandbox: its own keys, jobs and files, no credits, whitelisted files only. */
  sandbox: boolean;
  /** A region the base forces; absent at the plain and sandbox bases. */
  region?: string;
}

export const LIVE_BASE: ApiBase = { prefix: '', sandbox: false };

/**
 * The base of a file-API request, from the `apiBase` path parameter of the prefixed routes
 * (`/{apiBase}/v2/…`): absent for the plain routes, else `sandbox` or a region; anything else (even
 * `sync` or `v2` matched by a greedy route) is none of ours.
 */
export function apiBaseOf(apiBase: string | undefined, regions: readonly string[]): ApiBase | undefined {
  if (apiBase === undefined) return LIVE_BASE;
  if (apiBase === 'sandbox') return { prefix: '/sandbox', sandbox: true };
  if (regions.includes(apiBase)) return { prefix: `/${apiBase}`, sandbox: false, region: apiBase };
  return undefined;
}

/** `scheme://host` plus the request's base prefix: where `links.self` of what it answers points. */
export const apiUrlOf = (req: { baseUrl: string; apiBase?: ApiBase }): string => `${req.baseUrl}${req.apiBase?.prefix ?? ''}`;
