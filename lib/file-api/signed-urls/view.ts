/** A signed-URL base as the API shows it (the signing secret only in the creation answer). */
import { toIsoSeconds } from '../../kernel/time.js';
import type { SignedUrlRecord } from './store.js';

export const signedUrlView = (record: SignedUrlRecord): Record<string, unknown> => ({
  id: record.id,
  url: record.url,
  sandbox: record.sandbox === true,
  created_at: toIsoSeconds(record.createdAt),
});
