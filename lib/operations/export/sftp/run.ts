import { implement } from '../../define.js';
import { lazy } from '../../lazy.js';
import { exportSftp } from './operation.js';

// ssh2 is loaded when a task first needs it.
export default implement(exportSftp, lazy(async () => (await import('../../sftp.js')).exportSftp));
