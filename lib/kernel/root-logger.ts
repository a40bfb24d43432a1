/** The function instance's root logger, configured once. */
import { config } from './config.js';
import { createLogger, type Logger } from './log.js';

let root: Logger | undefined;

export function rootLogger(): Logger {
  if (!root) {
    const c = config();
    root = createLogger({ service: c.SERVICE_NAME, stage: c.STAGE }, { level: c.LOG_LEVEL });
  }
  return root;
}
