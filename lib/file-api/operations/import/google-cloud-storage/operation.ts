/** `import/google-cloud-storage`: objects from a Cloud Storage bucket, by name or every object under `file_prefix`. */
import { defineOperation } from '../../framework/define.js';
import { importGcsArgs } from '../../framework/storage-fields.js';

export const importGoogleCloudStorage = defineOperation({ name: 'import/google-cloud-storage', step: 'import', inputs: 'none', credits: 0, schema: importGcsArgs });
