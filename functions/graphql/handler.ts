/**
 * GET and POST /graphql (plus GET /graphql/assets/{file} for the explorer): the creature GraphQL API.
 * One yoga instance per function instance, built at module scope; the state store and logger are
 * taken from the platform on first use.
 */
import { createCreatureYoga } from '#lib/creatures/yoga.js';
import { lambdaHandler } from '#lib/graphql/lambda.js';
import { stateStore } from '#lib/platform/clients.js';
import { rootLogger } from '#lib/platform/logger.js';

export const yoga = createCreatureYoga({ store: stateStore, logger: () => rootLogger().child({ function: 'graphql' }) });

export const handler = lambdaHandler(yoga);
