import { implement } from '../../framework/define.js';
import { lazy } from '../../framework/lazy.js';
import { exportOpenstack } from './operation.js';

export default implement(exportOpenstack, lazy(async () => (await import('../../storage/openstack-transfer.js')).exportOpenstack));
