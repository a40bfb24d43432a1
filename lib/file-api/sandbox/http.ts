/** What the sandbox whitelist endpoints (functions/sandbox/*) share: sandbox only, and the entry's shape. */
import { notFound } from '../../kernel/errors.js';
import type { Principal } from '../../http/types.js';
import { toIsoSeconds } from '../../kernel/time.js';
import type { SandboxFileRecord } from './files.js';

/** The whitelist exists at the sandbox base only (a live credential is refused there, so the principal tells). */
export function assertSandbox(principal: Principal): void {
  if (!principal.sandbox) throw notFound('The sandbox whitelist is served under /sandbox/v2 only.');
}

export const sandboxFileView = (e: SandboxFileRecord) => ({ md5: e.md5, filename: e.filename ?? null, created_at: toIsoSeconds(e.createdAt) });
