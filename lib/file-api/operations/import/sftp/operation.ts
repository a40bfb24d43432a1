/** `import/sftp`: files from an SFTP server, by path (`file`) or every file below a folder (`path`). */
import { defineOperation } from '../../framework/define.js';
import { importSftpArgs } from '../../framework/storage-fields.js';

export const importSftp = defineOperation({ name: 'import/sftp', step: 'import', inputs: 'none', credits: 0, schema: importSftpArgs });
