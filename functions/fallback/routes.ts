/**
 * Every HTTP route of the service, as declared in serverless.yml. The fallback function uses it to
 * tell an unknown path (404) from a known path with an unsupported method (405); a unit test keeps
 * it equal to serverless.yml.
 */
export const ROUTES: ReadonlyArray<readonly [method: string, path: string]> = [
  ['GET', '/v2/users/me'],
  ['GET', '/graphql'],
  ['POST', '/graphql'],
  ['GET', '/graphql/assets/{file}'],
];
