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

/** What one conversion job gave: its convert task's status and message, and the exported files in order. */
export interface ConvertedJob {
  status: string;
  message: string;
  files: Array<{ filename: string; bytes: Buffer }>;
}

/** One job through the SDK: `bytes` imported as `filename`, converted to `output_format`, exported and downloaded. */
export async function convertJob(cc: CloudConvert, bytes: Buffer, filename: string, output_format: string): Promise<ConvertedJob> {
  const created = await cc.jobs.create({
    tasks: {
      in: { operation: 'import/base64', file: bytes.toString('base64'), filename },
      op: { operation: 'convert', input: 'in', output_format },
      out: { operation: 'export/url', input: 'op' },
    },
  } as never);
  const job = await cc.jobs.wait(created.id);
  const task = job.tasks.find((t) => t.name === 'op')!;
  const files: ConvertedJob['files'] = [];
  if (task.status === 'finished') {
    for (const f of cc.jobs.getExportUrls(job)) files.push({ filename: f.filename, bytes: Buffer.from(await (await fetch(f.url!)).arrayBuffer()) });
  }
  return { status: String(task.status), message: String(task.message), files };
}
