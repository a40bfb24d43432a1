/** `import/openstack` and `export/openstack`: OpenStack Object Storage (Swift) containers, Keystone v3 password auth. */
import { SwiftStorage, describeSwiftError, swiftConnection } from '../../../adapters/user-storage/swift-storage.js';
import { exportToStorage, importFromStorage, openStorage } from './storage-transfer.js';
import type * as z from 'zod';
import type { exportOpenstackArgs, importOpenstackArgs } from '../framework/storage-fields.js';
import type { Implementation, OperationContext } from '../framework/types.js';

const service = { service: 'OpenStack Swift', describe: describeSwiftError };

type Payload = z.output<typeof importOpenstackArgs> | z.output<typeof exportOpenstackArgs>;

const open = (ctx: OperationContext<Payload>, code: string) =>
  openStorage(ctx, service, code, () =>
    SwiftStorage.open(swiftConnection(ctx.payload), {
      policy: { allowLoopback: ctx.config.ALLOW_LOOPBACK_FETCH, allowHosts: ctx.config.FETCH_ALLOW_HOSTS },
      // Keystone and the first answer of Swift within a minute.
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(60_000)]),
    }),
  );

export const importOpenstack: Implementation<z.output<typeof importOpenstackArgs>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await open(ctx, 'DOWNLOAD_FAILED');
  return importFromStorage(ctx, storage, { name: p.file, prefix: p.file_prefix, filename: p.filename, field: 'file' });
};

export const exportOpenstack: Implementation<z.output<typeof exportOpenstackArgs>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await open(ctx, 'UPLOAD_FAILED');
  return exportToStorage(ctx, storage, { name: p.file, prefix: p.file_prefix, field: 'file' });
};
