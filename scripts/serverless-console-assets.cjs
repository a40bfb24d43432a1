// A Serverless Framework plugin of this project: builds the console (console/src) into
// dist/console-assets/ (lib/web/console/build.ts) before the functions are packaged, so that the
// consoleAssets and consolePage functions' `package.patterns` pack it, and before serverless-offline
// starts, so that `npm start` serves it. Listed before the bundler in serverless.yml.
const buildHooks = require('./serverless-build-hooks.cjs');

class ConsoleAssets {
  constructor(_serverless, _options, { log } = {}) {
    const build = async () => {
      const { tsImport } = require('tsx/esm/api');
      const { buildConsoleAssets } = await tsImport('../lib/web/console/build.ts', __filename);
      const started = Date.now();
      const manifest = await buildConsoleAssets();
      const gzipped = Object.values(manifest.sizes).reduce((sum, s) => sum + s.gzip, 0);
      (log?.verbose ?? console.log)(`console built in ${Date.now() - started} ms: ${manifest.script}, ${manifest.style} (${(gzipped / 1024).toFixed(1)} KiB gzip)`);
    };
    this.hooks = buildHooks(build);
  }
}
module.exports = ConsoleAssets;
