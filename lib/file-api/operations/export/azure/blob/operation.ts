/** `export/azure/blob` (the seed's `export/blobstore/blob`): files to an Azure Blob Storage container. */
import { defineOperation } from '../../../framework/define.js';
import { exportAzureArgs } from '../../../framework/storage-fields.js';

export const exportAzureBlob = defineOperation({
  name: 'export/azure/blob',
  aliases: ['export/blobstore/blob'],
  step: 'export',
  inputs: 'required',
  credits: 0,
  schema: exportAzureArgs,
});
