/** `import/sftp` and `export/sftp`: files on the user's SFTP server. */
import { SftpStorage, describeSftpError, sftpConnection } from '../../../adapters/user-storage/sftp-storage.js';
import { exportToStorage, importFromStorage, openStorage } from './storage-transfer.js';
import type * as z from 'zod';
import type { exportSftpArgs, importSftpArgs } from '../framework/storage-fields.js';
import type { Implementation, OperationContext } from '../framework/types.js';

const service = { service: 'SFTP', describe: describeSftpError };

type Payload = z.output<typeof importSftpArgs> | z.output<typeof exportSftpArgs>;

/** Connects under the address policy; the host key's fingerprint is logged (there is no known_hosts). */
const open = (ctx: OperationContext<Payload>, code: string) =>
  openStorage(ctx, service, code, () =>
    SftpStorage.open(sftpConnection(ctx.payload), {
      policy: { allowLoopback: ctx.config.ALLOW_LOOPBACK_FETCH, allowHosts: ctx.config.FETCH_ALLOW_HOSTS },
      signal: ctx.signal,
      onHostKey: (fingerprint) => ctx.log.info('sftp host key', { host: ctx.payload.host, fingerprint, checked: ctx.payload.host_key !== undefined }),
    }),
  );

/** `path` is a folder: the files go (or come from) below it, whether or not it ends with `/`. */
const folder = (path: string | undefined) => (path === undefined || path === '' || path.endsWith('/') ? path : `${path}/`);

export const importSftp: Implementation<z.output<typeof importSftpArgs>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await open(ctx, 'DOWNLOAD_FAILED');
  return importFromStorage(ctx, storage, { name: p.file, prefix: folder(p.path), filename: p.filename, field: 'file', prefixField: 'path' });
};

export const exportSftp: Implementation<z.output<typeof exportSftpArgs>> = async (ctx) => {
  const p = ctx.payload;
  const storage = await open(ctx, 'UPLOAD_FAILED');
  return exportToStorage(ctx, storage, { name: p.file, prefix: folder(p.path), field: 'file', prefixField: 'path' });
};
