import { implement } from '../../framework/define.js';
import { lazy } from '../../framework/lazy.js';
import { exportSftp } from './operation.js';

// ssh2 is loaded when a task first needs it.
export default implement(exportSftp, lazy(async () => (await import('../../storage/sftp-transfer.js')).exportSftp));
