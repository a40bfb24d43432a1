/** DELETE /sandbox/v2/users/me/sandbox/files/{md5} (our extension; scope user.write): takes an MD5 off the caller's whitelist. */
import * as z from 'zod';
import { notFound } from '#lib/kernel/errors.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { noContent } from '#lib/http/types.js';
import { sandboxFiles } from '#lib/wiring/sandbox.js';
import { assertSandbox } from '#lib/file-api/sandbox/http.js';

const params = z.object({ md5: z.string().regex(/^[0-9a-fA-F]{32}$/, 'must be an MD5 checksum: 32 hexadecimal characters') });

export const handler = fileApiRoute({ scope: 'user.write', body: 'none', schemas: { params } }, async (req) => {
  assertSandbox(req.principal);
  if (!(await sandboxFiles().remove(req.principal.userId, req.params.md5))) throw notFound(`${req.params.md5} is not on the sandbox whitelist.`);
  return noContent();
});
