// A Serverless Framework plugin that does nothing: put in place of serverless-esbuild for local runs
// (local/offline.ts sets SLS_BUNDLER_PLUGIN), so serverless-offline loads the TypeScript handlers
// from source with its built-in tsx support instead of bundling every function at start-up.
class SourceHandlers {
  constructor() {
    this.hooks = {};
  }
}
module.exports = SourceHandlers;
