/** `export/upload`: each file sent with an HTTP PUT to `url` (through the address guard). */
import { defineOperation } from '../../define.js';
import { exportUploadArgs } from '../../storage-fields.js';

export const exportUpload = defineOperation({ name: 'export/upload', step: 'export', inputs: 'required', credits: 0, schema: exportUploadArgs });
