/**
 * Every HTTP route of the service, as declared in serverless.yml. The fallback function uses it to
 * tell an unknown path (404) from a known path with an unsupported method (405); a unit test keeps
 * it equal to serverless.yml.
 */
export const ROUTES: ReadonlyArray<readonly [method: string, path: string]> = [
  ['GET', '/v2/users/me'],
  ['GET', '/v2/users/me/usage'],
  ['POST', '/v2/jobs'],
  ['GET', '/v2/jobs'],
  ['GET', '/v2/jobs/{id}'],
  ['DELETE', '/v2/jobs/{id}'],
  ['GET', '/v2/jobs/{id}/wait'],
  ['GET', '/sync/v2/jobs/{id}'],
  ['POST', '/sync/v2/jobs'],
  ['POST', '/v2/{operation+}'],
  ['GET', '/v2/tasks'],
  ['GET', '/v2/tasks/{id}'],
  ['DELETE', '/v2/tasks/{id}'],
  ['POST', '/v2/tasks/{id}/cancel'],
  ['POST', '/v2/tasks/{id}/retry'],
  ['GET', '/v2/tasks/{id}/wait'],
  ['GET', '/sync/v2/tasks/{id}'],
  ['GET', '/v2/operations'],
  ['GET', '/v2/convert/formats'],
  ['POST', '/v2/webhooks'],
  ['GET', '/v2/users/me/webhooks'],
  ['DELETE', '/v2/webhooks/{id}'],
  ['GET', '/v2/users/me/webhooks/signing-secret'],
  ['GET', '/v2/files/{taskId}/{index}/{name}'],
  ['HEAD', '/v2/files/{taskId}/{index}/{name}'],
  ['GET', '/graphql'],
  ['POST', '/graphql'],
  ['GET', '/graphql/assets/{file}'],
  ['GET', '/v2beta/limits/label'],
  ['*', '/v1/{proxy+}'],
];
