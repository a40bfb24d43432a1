/** `import/azure/blob`: blobs from an Azure Blob Storage container, by name or every blob under `blob_prefix`. */
import { defineOperation } from '../../../framework/define.js';
import { importAzureArgs } from '../../../framework/storage-fields.js';

export const importAzureBlob = defineOperation({ name: 'import/azure/blob', step: 'import', inputs: 'none', credits: 0, schema: importAzureArgs });
