/** `export/sftp`: files to an SFTP server, to one path (`file`) or by their names into a folder (`path`). */
import { defineOperation } from '../../framework/define.js';
import { exportSftpArgs } from '../../framework/storage-fields.js';

export const exportSftp = defineOperation({ name: 'export/sftp', step: 'export', inputs: 'required', credits: 0, schema: exportSftpArgs });
