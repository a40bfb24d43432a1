/** `import/openstack`: objects from an OpenStack Object Storage (Swift) container, by name or every object under `file_prefix`. */
import { defineOperation } from '../../framework/define.js';
import { importOpenstackArgs } from '../../framework/storage-fields.js';

export const importOpenstack = defineOperation({ name: 'import/openstack', step: 'import', inputs: 'none', credits: 0, schema: importOpenstackArgs });
