import { implement } from '../../define.js';
import { lazy } from '../../lazy.js';
import { exportOpenstack } from './operation.js';

export default implement(exportOpenstack, lazy(async () => (await import('../../openstack.js')).exportOpenstack));
