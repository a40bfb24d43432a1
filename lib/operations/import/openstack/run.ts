import { implement } from '../../define.js';
import { lazy } from '../../lazy.js';
import { importOpenstack } from './operation.js';

export default implement(importOpenstack, lazy(async () => (await import('../../openstack.js')).importOpenstack));
