/** convert on the Chromium function's engine: HTML to PDF and images. */
import { htmlWithChrome } from '../../../engines/chrome/handlers.js';
import { markdownConvert } from '../../../engines/markup/markdown.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

export default handlers(convert, 'chromium', { chrome: htmlWithChrome, markdown: markdownConvert });
