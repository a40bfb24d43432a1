/** The official `cloudconvert` SDK pointed at a local base URL (spec §14.1: override `callWithBase`). */
import CloudConvert from 'cloudconvert';

/**
 * Where this service serves the base an SDK call names: the host's labels say sandbox, sync and
 * region (`api.sandbox.`, `sync.api.sandbox.`, `{region}.api.`, `{region}.sync.api.`); the README
 * shows the same mapping.
 */
export function localBase(sdkBase: string, serviceUrl: string): string {
  const labels = new URL(sdkBase).hostname.split('.');
  const region = labels[0] === 'api' || labels[0] === 'sync' ? '' : `/${labels[0]}`;
  const where = labels.includes('sandbox') ? '/sandbox' : region;
  return `${serviceUrl}${where}${labels.includes('sync') ? '/sync' : ''}/v2/`;
}

export interface ClientOptions {
  /** `new CloudConvert(key, true)`: the sandbox. */
  sandbox?: boolean;
  /** `new CloudConvert(key, false, region)`: a processing region. */
  region?: string;
}

export function cloudConvertClient(apiKey: string, baseUrl: string, opts: ClientOptions = {}): CloudConvert {
  // The SDK's types say `region?: null`; its code takes a region name.
  const client = new CloudConvert(apiKey, opts.sandbox ?? false, (opts.region ?? null) as null);
  const callWithBase = client.callWithBase.bind(client);
  client.callWithBase = (base, method, route, parameters, options) => callWithBase(localBase(base, baseUrl), method, route, parameters, options);
  return client;
}
