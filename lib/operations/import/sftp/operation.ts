/** `import/sftp`: files from an SFTP server, by path (`file`) or every file below a folder (`path`). */
import { defineOperation } from '../../define.js';
import { importSftpArgs } from '../../storage-fields.js';

export const importSftp = defineOperation({ name: 'import/sftp', step: 'import', inputs: 'none', credits: 0, schema: importSftpArgs });
