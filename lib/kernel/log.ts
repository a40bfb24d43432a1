/**
 * Observability: structured JSON log lines on stdout, one per event, with the request id and
 * whatever context the caller binds (jobId, taskId, operation…). Every line passes through the one
 * redaction rule (lib/kernel/redact.ts): secret fields and header values hidden at any depth, URLs and
 * credentials in text redacted, and the secrets a child logger was given (a task's own) hidden wherever
 * they appear.
 */
import { redactText, redactValue } from './redact.js';
import { mapStack } from './stack-map.js';

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger with more bound fields; `secrets` (values to hide in every line) add to the parent's. */
  child(fields: Record<string, unknown>, opts?: { secrets?: readonly string[] }): Logger;
  /** Runs `fn` and logs its duration under `msg`. */
  time<T>(msg: string, fn: () => Promise<T>, fields?: Record<string, unknown>): Promise<T>;
}

export interface LoggerOptions {
  level?: Level | 'silent';
  write?: (line: string) => void;
  /** Values hidden wherever they appear in a line. */
  secrets?: readonly string[];
}

/** Errors among a line's fields with their stacks mapped back to the TypeScript sources. */
function mapped(fields: Record<string, unknown>): Record<string, unknown> {
  let out = fields;
  for (const [key, value] of Object.entries(fields)) {
    if (value instanceof Error && value.stack) {
      if (out === fields) out = { ...fields };
      out[key] = { name: value.name, message: value.message, stack: mapStack(value.stack) };
    }
  }
  return out;
}

export function createLogger(base: Record<string, unknown> = {}, opts: LoggerOptions = {}): Logger {
  const threshold = order[opts.level ?? 'info'];
  const write = opts.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const emit = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (order[level] < threshold) return;
    const secrets = opts.secrets ?? [];
    write(JSON.stringify({ time: new Date().toISOString(), level, msg: redactText(msg, secrets), ...(redactValue(mapped({ ...base, ...fields }), secrets) as object) }));
  };
  const logger: Logger = {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields, more) =>
      createLogger({ ...base, ...fields }, more?.secrets?.length ? { ...opts, secrets: [...(opts.secrets ?? []), ...more.secrets] } : opts),
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
