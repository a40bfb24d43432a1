/**
 * Stands in for `@aws-sdk/credential-provider-node` (the SDK clients' default credential chain) in the
 * function bundles: serverless.yml's `custom.esbuild.alias` points the SDK's import here. In Lambda the
 * function role's session credentials are always in the environment (AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN); the default chain's other sources (profiles, SSO, process,
 * web identity, container and instance metadata) with their own STS and SSO clients would add about
 * 315 KB to every bundle and are never used there. Sources run under tsx (npm start, tests, scripts)
 * keep the SDK's own chain.
 */
import { fromEnv, type FromEnvInit } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init: FromEnvInit = {}): ReturnType<typeof fromEnv> => {
  const env = fromEnv(init);
  return async (props) => {
    try {
      return await env(props);
    } catch (err) {
      throw new Error(
        'No AWS credentials in the environment: the functions read AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and ' +
          'AWS_SESSION_TOKEN, which Lambda sets from the function role (profiles and other sources are not bundled)',
        { cause: err },
      );
    }
  };
};
