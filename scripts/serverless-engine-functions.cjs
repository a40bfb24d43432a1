/**
 * A local Serverless Framework plugin: at packaging (`serverless package`, `deploy`), tells every
 * function which engine functions the stack has, so that task creation, discovery, routing and the
 * engine that runs a task agree (lib/engines/core/families.ts). Local runs (serverless-offline) are left
 * as they are: there every function probes the machine, and the process functions run their engines
 * inline (ENGINE_ISOLATION's default), confined by bubblewrap.
 *
 * - `custom.engineFunctions` maps each process function (the step's consumer) to its engine family;
 *   `custom.engineIsolation` says where the engines run in the deployed stack:
 *   - `function` (default): in the family's engine function `engine<Family>` (lib/file-api/operations/engine-function.ts).
 *     The process function gets ENGINE_ISOLATION and ENGINE_FUNCTION_NAME and, as it only waits, 512 MB,
 *     the default /tmp, no ENGINE_FAMILY and no engine in its zip (`invokesItsEngines`); the engine
 *     function gets the family's engine settings, ENGINE_REAP, and an environment holding nothing but
 *     engine settings (no table, queue, bucket or signing secret: a compromised engine reads its own
 *     environment);
 *   - `inline`: the process functions run the engines, as locally; the engine functions are left out.
 * - The office engine (LibreOffice) is a container image: with OFFICE_IMAGE=1 it is
 *   built from the Dockerfile (`provider.ecr.images.office`, which needs Docker and pushes to ECR at
 *   deploy); with OFFICE_IMAGE_URI=<account>.dkr.ecr.<region>.amazonaws.com/<repo>@sha256:… an image
 *   pushed already is used; otherwise the office functions are left out, and the stack says office
 *   conversion is absent. The image holds both handlers; it runs the one that runs LibreOffice.
 * - Every function gets ENGINE_FUNCTIONS (the families deployed); the function that runs a family's
 *   engines its ENGINE_FAMILY, ENGINE_CONFINEMENT `platform` unless set (Lambda gives no namespaces
 *   for bubblewrap or unshare, each instance runs one task at a time in its own /tmp folder), and
 *   ENGINE_MAX_INPUT_BYTES and TASK_MAX_OUTPUT_BYTES each a quarter of its ephemeral storage unless set
 *   (the process function too: it refuses inputs too large before invoking, and its upload grant
 *   bounds what the engine function may store).
 */
'use strict';

const OFFICE = 'office';

/** What an engine function's environment may hold: engine settings and the logger's (lib/kernel/config.ts). */
const ENGINE_FUNCTION_ENV = /^(ENGINE_(FAMILY|FUNCTIONS|CONFINEMENT|MAX_INPUT_BYTES|TMP_DIR|ORDER|REAP)|ENGINES_DISABLED|SHIPPED_ENGINES|MAX_[A-Z_]+|EXIFTOOL_[A-Z_]+|[A-Z]+_PATH|ALLOW_LOOPBACK_FETCH|FETCH_ALLOW_HOSTS|LOG_LEVEL|SERVICE_NAME|STAGE|TASK_MAX_SECONDS|TASK_MAX_OUTPUT_BYTES)$/;

const capitalized = (family) => family[0].toUpperCase() + family.slice(1);

const isolationOf = (service) => {
  const isolation = String(service.custom?.engineIsolation ?? 'function');
  if (!['function', 'inline'].includes(isolation)) throw new Error(`custom.engineIsolation is ${isolation}: function or inline`);
  return isolation;
};

/**
 * Whether `name` is a process function whose engines run in its family's engine function: it loads
 * none of them, and its zip carries none (scripts/serverless-lambda-package.cjs).
 */
function invokesItsEngines(serverless, name) {
  const service = serverless.service;
  return isolationOf(service) === 'function' && Object.hasOwn(service.custom?.engineFunctions ?? {}, name);
}

class EngineFunctions {
  constructor(serverless, _options, { log } = {}) {
    this.serverless = serverless;
    this.log = log;
    this.engineFunctions = [];
    this.hooks = {
      // Before the bundler's hooks (serverless-esbuild bundles at before:package:createDeploymentArtifacts).
      'before:package:initialize': () => this.apply(),
      // The provider's environment is merged into every function when it is compiled: taken out again here.
      'after:package:compileFunctions': () => this.confineEnvironments(),
    };
  }

  apply() {
    const service = this.serverless.service;
    const declared = service.custom?.engineFunctions ?? {};
    const isolation = isolationOf(service);
    const truthy = (v) => ['1', 'true', 'yes'].includes(String(v ?? '').toLowerCase());
    const imageUri = process.env.OFFICE_IMAGE_URI?.trim();
    const buildImage = truthy(process.env.OFFICE_IMAGE);
    const prefix = `${service.service}-${this.serverless.getProvider('aws').getStage()}`;
    const families = [];
    for (const [name, family] of Object.entries(declared)) {
      const fn = service.functions?.[name];
      if (!fn) throw new Error(`custom.engineFunctions names ${name}, which is not a function`);
      const engineName = `engine${capitalized(family)}`;
      const engine = service.functions?.[engineName];
      if (!engine) throw new Error(`${name} runs the ${family} family: its engine function ${engineName} is missing`);
      if (family === OFFICE && !imageUri && !buildImage) {
        delete service.functions[name];
        delete service.functions[engineName];
        this.log?.notice?.(`${name} left out: deploy with OFFICE_IMAGE=1 (Docker) or OFFICE_IMAGE_URI for office conversion`);
        continue;
      }
      // Where the engines run: the engine function, or (inline) the process function itself.
      const runner = isolation === 'function' ? engine : fn;
      if (isolation === 'inline') delete service.functions[engineName];
      if (family === OFFICE) {
        // The image holds both handlers (Dockerfile); the function that runs LibreOffice is the image.
        runner.image = imageUri ? { uri: imageUri, command: [runner.handler] } : { name: OFFICE, command: [runner.handler] };
        delete runner.handler;
      }
      // Aliased YAML maps are one object: copy before adding this function's own settings.
      // Inputs take at most a quarter of the function's /tmp (outputs and the engine's own files share it).
      const tmpMb = Number(runner.ephemeralStorageSize ?? 512);
      const engineSettings = {
        ENGINE_FAMILY: family,
        ENGINE_CONFINEMENT: process.env.ENGINE_CONFINEMENT || 'platform',
        ENGINE_MAX_INPUT_BYTES: process.env.ENGINE_MAX_INPUT_BYTES || String(Math.floor(tmpMb / 4) * 1024 * 1024),
        // What a task's engine may write: another quarter (the rest: Chromium's unpacked binary, caches).
        TASK_MAX_OUTPUT_BYTES: process.env.TASK_MAX_OUTPUT_BYTES || String(Math.floor(tmpMb / 4) * 1024 * 1024),
      };
      fn.environment = { ...fn.environment, ...engineSettings };
      if (isolation === 'function') {
        engine.environment = { ...engine.environment, ...engineSettings, ENGINE_REAP: 'true' };
        // No ENGINE_FAMILY: the process function has no engine to probe (its zip carries none), and
        // sees its family's engines as their engine function's package has them (families.ts PACKAGED).
        fn.environment = { ...fn.environment, ENGINE_ISOLATION: 'function', ENGINE_FUNCTION_NAME: `${prefix}-${engineName}` };
        delete fn.environment.ENGINE_FAMILY;
        // The process function only waits for its engine function.
        fn.memorySize = 512;
        delete fn.ephemeralStorageSize;
        this.engineFunctions.push(engineName);
      }
      families.push(family);
    }
    service.provider.environment = { ...service.provider.environment, ENGINE_FUNCTIONS: [...new Set(families)].join(',') };
  }

  /** Each engine function's compiled environment, cut to engine settings. */
  confineEnvironments() {
    const provider = this.serverless.getProvider('aws');
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    for (const name of this.engineFunctions) {
      const variables = resources[provider.naming.getLambdaLogicalId(name)]?.Properties?.Environment?.Variables;
      if (!variables) continue;
      for (const key of Object.keys(variables)) if (!ENGINE_FUNCTION_ENV.test(key)) delete variables[key];
    }
  }
}

module.exports = EngineFunctions;
module.exports.invokesItsEngines = invokesItsEngines;
