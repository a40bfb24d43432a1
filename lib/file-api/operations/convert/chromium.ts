/** convert on the Chromium function's engines: HTML to PDF and images, SVG to PDF, Markdown to HTML and PDF. */
import { htmlWithChrome, type CaptureArgs } from '../../../engines/chrome/handlers.js';
import { svgToPdfWithChrome } from '../../../engines/chrome/svg.js';
import type { EngineCall } from '../../../engines/core/call.js';
import { markdownConvert } from '../../../engines/markup/markdown.js';
import { handlers } from '../framework/define.js';
import { convert } from './operation.js';

const chrome = (call: EngineCall<CaptureArgs>) => (call.inputs[0]?.format === 'svg' ? svgToPdfWithChrome(call) : htmlWithChrome(call));

export default handlers(convert, 'chromium', { chrome, markdown: markdownConvert });
