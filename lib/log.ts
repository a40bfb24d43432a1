/**
 * Observability: structured JSON log lines on stdout, one per event, with the request id and
 * whatever context the caller binds (jobId, taskId, operation…). Secrets never reach this module
 * from callers; as a second line of defence, values of keys that look like secrets are redacted.
 */
import { mapStack } from './stack-map.js';

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const SECRET_KEY = /(secret|password|token|private_key|access_key|authorization|signature|api_key|sas)/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack && mapStack(value.stack) };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1)]),
  );
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /** Runs `fn` and logs its duration under `msg`. */
  time<T>(msg: string, fn: () => Promise<T>, fields?: Record<string, unknown>): Promise<T>;
}

export interface LoggerOptions {
  level?: Level | 'silent';
  write?: (line: string) => void;
}

export function createLogger(base: Record<string, unknown> = {}, opts: LoggerOptions = {}): Logger {
  const threshold = order[opts.level ?? 'info'];
  const write = opts.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const emit = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (order[level] < threshold) return;
    write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...(redact({ ...base, ...fields }) as object) }));
  };
  const logger: Logger = {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ ...base, ...fields }, opts),
    async time(msg, fn, fields) {
      const start = performance.now();
      try {
        return await fn();
      } finally {
        emit('info', msg, { ...fields, durationMs: Math.round(performance.now() - start) });
      }
    },
  };
  return logger;
}
