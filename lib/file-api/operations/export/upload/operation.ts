/** `export/upload`: each file sent with an HTTP PUT to `url` (through the address guard). */
import { defineOperation } from '../../framework/define.js';
import { exportUploadArgs } from '../../framework/storage-fields.js';

export const exportUpload = defineOperation({ name: 'export/upload', step: 'export', inputs: 'required', credits: 0, schema: exportUploadArgs });
