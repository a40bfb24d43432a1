// The Serverless events before which this project's build plugins (GraphiQL's assets, the console) run:
// before packaging, before a single function is deployed, before serverless-offline starts and before a
// local invoke. Hooks of one event run in plugin order, so these plugins are listed before the bundler.
module.exports = function buildHooks(build) {
  return {
    'before:package:createDeploymentArtifacts': build,
    'before:deploy:function:packageFunction': build,
    'before:offline:start': build,
    'before:offline:start:init': build,
    'before:invoke:local:invoke': build,
  };
};
