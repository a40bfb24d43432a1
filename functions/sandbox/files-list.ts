/** GET /sandbox/v2/users/me/sandbox/files (our extension; scope user.read): the MD5s the caller's sandbox imports may bring in. */
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { sandboxFiles } from '#lib/wiring/sandbox.js';
import { assertSandbox, sandboxFileView } from '#lib/file-api/sandbox/http.js';

export const handler = fileApiRoute({ scope: 'user.read', body: 'none' }, async (req) => {
  assertSandbox(req.principal);
  return json(200, { data: (await sandboxFiles().list(req.principal.userId)).map(sandboxFileView) });
});
