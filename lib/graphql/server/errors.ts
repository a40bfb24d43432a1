/**
 * The GraphQL dialect of the error hierarchy in lib/kernel/errors.ts. A resolver throws ApiError (or lets
 * anything else escape); this renderer shows exposed ApiErrors (client errors) with their message and
 * `extensions.code` set to their reason, and masks everything else as "Unexpected error." with code
 * INTERNAL_SERVER_ERROR, whatever NODE_ENV says. The unmasked original is logged whole.
 */
import type { GraphQLError } from 'graphql';
import { createGraphQLError, maskError as yogaMaskError, type MaskError, type YogaLogger } from 'graphql-yoga';
import { ApiError } from '../../kernel/errors.js';
import type { Logger } from '../../kernel/log.js';

/**
 * Duck-typed: `graphql` can be loaded twice (its ESM and CJS builds, e.g. under vitest), and an error
 * from one copy is no `instanceof` the other's GraphQLError.
 */
const isGraphQLError = (error: unknown): error is GraphQLError =>
  error instanceof Error && error.name === 'GraphQLError' && 'extensions' in error;

const exposedApiError = (error: unknown): ApiError | undefined => {
  const original = isGraphQLError(error) ? error.originalError : error;
  return original instanceof ApiError && original.expose ? original : undefined;
};

export const maskError: MaskError = (error, message) => {
  const exposed = exposedApiError(error);
  if (exposed) {
    const located = isGraphQLError(error) ? error : undefined;
    return createGraphQLError(exposed.message, {
      nodes: located?.nodes,
      source: located?.source,
      positions: located?.positions,
      path: located?.path,
      extensions: {
        code: exposed.code ?? exposed.reason,
        ...(exposed.fields ? { fields: exposed.fields } : {}),
      },
    });
  }
  return yogaMaskError(error, message, false);
};

/**
 * Yoga's logger interface on top of ours. Yoga logs every error it masks; client errors (exposed
 * ApiErrors) are expected traffic and go to `info`, everything else to `error` with the whole cause.
 */
export function yogaLogger(logger: () => Logger): YogaLogger {
  const text = (args: unknown[]) => args.filter((a) => typeof a === 'string').join(' ');
  return {
    debug: (...args: unknown[]) => logger().debug(text(args) || 'graphql', { args: args.filter((a) => typeof a !== 'string') }),
    info: (...args: unknown[]) => logger().info(text(args) || 'graphql'),
    warn: (...args: unknown[]) => logger().warn(text(args) || 'graphql', { args: args.filter((a) => typeof a !== 'string') }),
    error: (...args: unknown[]) => {
      const [first] = args;
      const exposed = exposedApiError(first);
      if (exposed) {
        logger().info('graphql client error', { reason: exposed.reason, message: exposed.message });
        return;
      }
      const original = isGraphQLError(first) && first.originalError ? first.originalError : first;
      logger().error('graphql unexpected error', {
        error: original,
        ...(isGraphQLError(first) ? { path: first.path, graphqlMessage: first.message } : {}),
      });
    },
  };
}
