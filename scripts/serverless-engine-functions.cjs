/**
 * A local Serverless Framework plugin: at packaging (`serverless package`, `deploy`), tells every
 * function which engine functions the stack has, so that task creation, discovery, routing and the
 * engine that runs a task agree (lib/engines/families.ts). Local runs (serverless-offline) are left
 * as they are: there every function probes the machine.
 *
 * - `custom.engineFunctions` maps each engine function to its engine family.
 * - The office function (LibreOffice) is a container image: with OFFICE_IMAGE=1 it is
 *   built from the Dockerfile (`provider.ecr.images.office`, which needs Docker and pushes to ECR at
 *   deploy); with OFFICE_IMAGE_URI=<account>.dkr.ecr.<region>.amazonaws.com/<repo>@sha256:… an image
 *   pushed already is used; otherwise the function is left out, and the stack says office conversion
 *   is absent.
 * - Every function gets ENGINE_FUNCTIONS (the families deployed); each engine function its own
 *   ENGINE_FAMILY, ENGINE_CONFINEMENT `platform` unless set (Lambda gives no namespaces for
 *   bubblewrap or unshare, each instance runs one task at a time in its own /tmp folder), and
 *   ENGINE_MAX_INPUT_BYTES and TASK_MAX_OUTPUT_BYTES each a quarter of its ephemeral storage unless set.
 */
'use strict';

const OFFICE = 'office';

class EngineFunctions {
  constructor(serverless, _options, { log } = {}) {
    this.serverless = serverless;
    this.log = log;
    // Before the bundler's hooks (serverless-esbuild bundles at before:package:createDeploymentArtifacts).
    this.hooks = { 'before:package:initialize': () => this.apply() };
  }

  apply() {
    const service = this.serverless.service;
    const declared = service.custom?.engineFunctions ?? {};
    const truthy = (v) => ['1', 'true', 'yes'].includes(String(v ?? '').toLowerCase());
    const imageUri = process.env.OFFICE_IMAGE_URI?.trim();
    const buildImage = truthy(process.env.OFFICE_IMAGE);
    const families = [];
    for (const [name, family] of Object.entries(declared)) {
      const fn = service.functions?.[name];
      if (!fn) throw new Error(`custom.engineFunctions names ${name}, which is not a function`);
      if (family === OFFICE) {
        if (!imageUri && !buildImage) {
          delete service.functions[name];
          this.log?.notice?.(`${name} left out: deploy with OFFICE_IMAGE=1 (Docker) or OFFICE_IMAGE_URI for office conversion`);
          continue;
        }
        // The image runs the same handler as the zip would (its bundle is built inside the image).
        fn.image = imageUri ? { uri: imageUri, command: [fn.handler] } : { name: OFFICE, command: [fn.handler] };
        delete fn.handler;
      }
      // Aliased YAML maps are one object: copy before adding this function's own settings.
      // Inputs take at most a quarter of the function's /tmp (outputs and the engine's own files share it).
      const tmpMb = Number(fn.ephemeralStorageSize ?? 512);
      fn.environment = {
        ...fn.environment,
        ENGINE_FAMILY: family,
        ENGINE_CONFINEMENT: process.env.ENGINE_CONFINEMENT || 'platform',
        ENGINE_MAX_INPUT_BYTES: process.env.ENGINE_MAX_INPUT_BYTES || String(Math.floor(tmpMb / 4) * 1024 * 1024),
        // What a task's engine may write: another quarter (the rest: Chromium's unpacked binary, caches).
        TASK_MAX_OUTPUT_BYTES: process.env.TASK_MAX_OUTPUT_BYTES || String(Math.floor(tmpMb / 4) * 1024 * 1024),
      };
      families.push(family);
    }
    service.provider.environment = { ...service.provider.environment, ENGINE_FUNCTIONS: [...new Set(families)].join(',') };
  }
}

module.exports = EngineFunctions;
