/**
 * GET and POST /graphql (plus GET /graphql/assets/{file} for the explorer): the creature GraphQL API.
 * One yoga instance per function instance, built at module scope; the state store and logger are
 * taken from the platform on first use, the batch bound from the configuration at cold start.
 */
import { graphqlConfig } from '#lib/kernel/config.js';
import { createCreatureYoga } from '#lib/graphql/creatures/yoga.js';
import { lambdaHandler } from '#lib/graphql/server/lambda.js';
import { stateStore } from '#lib/wiring/clients.js';
import { rootLogger } from '#lib/kernel/root-logger.js';

export const yoga = createCreatureYoga({
  store: stateStore,
  logger: () => rootLogger().child({ function: 'graphql' }),
  batchLimit: graphqlConfig().GRAPHQL_BATCH_LIMIT,
});

export const handler = lambdaHandler(yoga);
