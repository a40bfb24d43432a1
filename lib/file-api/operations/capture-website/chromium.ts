/** capture-website on the Chromium function. */
import { captureWebsite as capture } from '../../../engines/chrome/handlers.js';
import { handlers } from '../framework/define.js';
import { captureWebsite } from './operation.js';

export default handlers(captureWebsite, 'chromium', { chrome: capture });
