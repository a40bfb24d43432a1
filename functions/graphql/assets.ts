/**
 * GET /graphql/assets/{file}: the GraphiQL explorer's script, style sheet, workers and icon, read from the
 * precompressed files packed beside this handler (lib/graphql/server/graphiql-assets.ts). No configuration, no
 * state: the bundle is a few kilobytes.
 */
import { createAssetsHandler, GRAPHIQL_ASSETS_DIR } from '#lib/graphql/server/graphiql-assets.js';

export const handler = createAssetsHandler({ dir: GRAPHIQL_ASSETS_DIR });
