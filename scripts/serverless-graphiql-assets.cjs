// A Serverless Framework plugin of this project: compresses GraphiQL's assets into dist/graphiql-assets/
// (lib/graphql/server/graphiql-assets-build.ts) before the functions are packaged, so that the graphiqlAssets
// function's `package.patterns` packs them, and before serverless-offline starts, so that `npm start`
// serves them. A folder already built for the installed GraphiQL version is reused. Listed before the
// bundler in serverless.yml: hooks of one event run in plugin order.
const path = require('node:path');
const buildHooks = require('./serverless-build-hooks.cjs');

class GraphiqlAssets {
  constructor(serverless, _options, { log } = {}) {
    const build = async () => {
      const { tsImport } = require('tsx/esm/api');
      const { buildGraphiqlAssets } = await tsImport('../lib/graphql/server/graphiql-assets-build.ts', __filename);
      const { GRAPHIQL_ASSETS_DIR } = await tsImport('../lib/graphql/server/graphiql-assets.ts', __filename);
      const started = Date.now();
      const result = await buildGraphiqlAssets(path.resolve(serverless.serviceDir, GRAPHIQL_ASSETS_DIR));
      const what = result.built ? `built in ${((Date.now() - started) / 1000).toFixed(1)} s` : 'up to date';
      (log?.verbose ?? console.log)(`GraphiQL assets ${what}: ${result.dir} (${(result.bytes / 1e6).toFixed(1)} MB)`);
    };
    this.hooks = buildHooks(build);
  }
}
module.exports = GraphiqlAssets;
