/** `export/s3` (the seed's `export/objstore`): files to an S3 bucket or an S3-compatible service, by key or under `key_prefix`. */
import { defineOperation } from '../../framework/define.js';
import { exportS3Args } from '../../framework/storage-fields.js';

export const exportS3 = defineOperation({ name: 'export/s3', aliases: ['export/objstore'], step: 'export', inputs: 'required', credits: 0, schema: exportS3Args });
