/**
 * A local Serverless Framework plugin: the npm packages that functions carry in node_modules (sharp's
 * binaries, listed as `external` for serverless-esbuild) are installed for Lambda (Linux x64, glibc),
 * whatever machine runs `serverless package` or `deploy`. serverless-esbuild runs `npm ci` and then
 * `npm prune` in its build folder; both read these settings from the environment they inherit, so a
 * Mac or an ARM laptop packs the same linux-x64 binaries as CI does.
 */
'use strict';

class LambdaPlatform {
  constructor() {
    process.env.npm_config_os = 'linux';
    process.env.npm_config_cpu = 'x64';
    process.env.npm_config_libc = 'glibc';
  }
}

module.exports = LambdaPlatform;
