import { implement } from '../../define.js';
import { lazy } from '../../lazy.js';
import { importGoogleCloudStorage } from './operation.js';

// The Cloud Storage SDK is loaded when a task first needs it.
export default implement(importGoogleCloudStorage, lazy(async () => (await import('../../google-cloud-storage.js')).importGoogleCloudStorage));
