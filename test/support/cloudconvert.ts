/** The official `cloudconvert` SDK pointed at a local base URL (spec §14.1: override `callWithBase`). */
import CloudConvert from 'cloudconvert';

export function cloudConvertClient(apiKey: string, baseUrl: string): CloudConvert {
  const client = new CloudConvert(apiKey);
  const callWithBase = client.callWithBase.bind(client);
  client.callWithBase = (base, method, route, parameters, options) =>
    callWithBase(/\/\/([^/]*\.)?sync\./.test(base) ? `${baseUrl}/sync/v2/` : `${baseUrl}/v2/`, method, route, parameters, options);
  return client;
}
