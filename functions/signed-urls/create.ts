/**
 * POST /v2/signed-urls: a signed-URL base of the caller, `{public base}/s/{id}`, with its own signing
 * secret, shown in this answer only. Made at the sandbox base with a sandbox key, its jobs run in the
 * sandbox.
 */
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { signedUrlView } from '#lib/file-api/signed-urls/view.js';
import { signedUrlStore } from '#lib/wiring/signed-urls.js';
import { SIGNED_URL_PATH } from '#lib/wiring/signed-url-run.js';

export const handler = fileApiRoute({ scope: 'task.write', body: 'json' }, async (req) => {
  const { record, secret } = await (await signedUrlStore()).create({
    userId: req.principal.userId,
    keyId: req.principal.keyId,
    publicBase: `${req.baseUrl}${SIGNED_URL_PATH}`,
    sandbox: req.principal.sandbox,
  });
  req.log.info('signed url base created', { signedUrlId: record.id });
  return json(201, { data: { ...signedUrlView(record), signing_secret: secret } });
});
