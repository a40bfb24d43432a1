/**
 * Secrets in task arguments (storage keys, tokens, private keys, passwords, credential headers, URL
 * credentials): hidden in every response and log line by the one rule of lib/kernel/redact.ts, and removed
 * from the stored payload once the task ends.
 */
import { redactValue } from '../../kernel/redact.js';

/** The payload as it may be shown. */
export function redactPayload(payload: Record<string, unknown>): Record<string, unknown> {
  return redactValue(payload) as Record<string, unknown>;
}

/** The payload as it may be kept after the task ended; the same object when nothing changes. */
export function scrubPayload(payload: Record<string, unknown>): Record<string, unknown> {
  const redacted = redactPayload(payload);
  return JSON.stringify(redacted) === JSON.stringify(payload) ? payload : redacted;
}
