/** `export/google-cloud-storage` (the seed's `export/cloud-storage`): files to a Cloud Storage bucket. */
import { defineOperation } from '../../framework/define.js';
import { exportGcsArgs } from '../../framework/storage-fields.js';

export const exportGoogleCloudStorage = defineOperation({
  name: 'export/google-cloud-storage',
  aliases: ['export/cloud-storage'],
  step: 'export',
  inputs: 'required',
  credits: 0,
  schema: exportGcsArgs,
});
