/** `export/openstack`: files to an OpenStack Object Storage (Swift) container, by name or under `file_prefix`. */
import { defineOperation } from '../../framework/define.js';
import { exportOpenstackArgs } from '../../framework/storage-fields.js';

export const exportOpenstack = defineOperation({ name: 'export/openstack', step: 'export', inputs: 'required', credits: 0, schema: exportOpenstackArgs });
