/** `import/s3`: objects from an S3 bucket or an S3-compatible service (`endpoint`), by key or every key under `key_prefix`. */
import { defineOperation } from '../../framework/define.js';
import { importS3Args } from '../../framework/storage-fields.js';

export const importS3 = defineOperation({ name: 'import/s3', step: 'import', inputs: 'none', credits: 0, schema: importS3Args });
