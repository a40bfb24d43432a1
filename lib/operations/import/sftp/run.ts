import { implement } from '../../define.js';
import { lazy } from '../../lazy.js';
import { importSftp } from './operation.js';

// ssh2 is loaded when a task first needs it.
export default implement(importSftp, lazy(async () => (await import('../../sftp.js')).importSftp));
