/**
 * POST /sandbox/v2/users/me/sandbox/files (our extension; scope user.write) `{"md5", "filename"?}`:
 * whitelists a file for the caller's sandbox imports. 201 with the entry (again for an MD5 already on
 * the list: it keeps its first entry).
 */
import * as z from 'zod';
import { invalid } from '#lib/kernel/errors.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { sandboxFiles } from '#lib/wiring/sandbox.js';
import { SandboxInputError } from '#lib/file-api/sandbox/files.js';
import { assertSandbox, sandboxFileView } from '#lib/file-api/sandbox/http.js';

const body = z
  .object({
    md5: z.string({ message: 'must be a string' }).regex(/^[0-9a-fA-F]{32}$/, 'must be an MD5 checksum: 32 hexadecimal characters'),
    filename: z.string({ message: 'must be a string' }).min(1, 'must not be empty').max(255, 'must be at most 255 characters').optional(),
  })
  .strict();

export const handler = fileApiRoute({ scope: 'user.write', bodyRequired: true, schemas: { body } }, async (req) => {
  assertSandbox(req.principal);
  try {
    const entry = await sandboxFiles().allow(req.principal.userId, req.body.md5, req.body.filename);
    req.log.info('sandbox file allowed', { md5: entry.md5 });
    return json(201, { data: sandboxFileView(entry) });
  } catch (err) {
    if (err instanceof SandboxInputError) throw invalid('The given data was invalid.', { [err.field]: [err.message] });
    throw err;
  }
});
