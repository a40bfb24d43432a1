import { implement } from '../../framework/define.js';
import { lazy } from '../../framework/lazy.js';
import { importOpenstack } from './operation.js';

export default implement(importOpenstack, lazy(async () => (await import('../../storage/openstack-transfer.js')).importOpenstack));
