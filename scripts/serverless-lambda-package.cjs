/**
 * A local Serverless Framework plugin: the npm packages that functions carry in node_modules (sharp's
 * binaries, listed as `external` for serverless-esbuild) are installed for Lambda (Linux x64, glibc),
 * whatever machine runs `serverless package` or `deploy`. serverless-esbuild runs `npm ci` and then
 * `npm prune` in its build folder; both read these settings from the environment they inherit, so a
 * Mac or an ARM laptop packs the same linux-x64 binaries as CI does.
 *
 * Once the zips are made, the permissions of their files are set as Lambda wants them: 0644, or 0755
 * for a file its owner could run. Lambda runs the code as a user that owns none of it, and npm installs
 * some binaries executable by their owner alone (`chmod u+x` of @ffmpeg-installer/@ffprobe-installer,
 * whose tarballs carry mode 0644): without this the static ffprobe could not be run from the package
 * (lib/engines/core/shipped.ts would copy it into /tmp at each cold start).
 */
'use strict';

const { readFileSync, writeFileSync } = require('node:fs');

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

/** Rewrites the Unix modes in a zip's central directory (same size, in place). Returns the entries changed. */
function lambdaModes(file) {
  const zip = readFileSync(file);
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file}: not a zip file`);
  const count = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new Error(`${file}: a zip64 archive; file modes not checked`);
  let changed = 0;
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== CENTRAL) throw new Error(`${file}: corrupt central directory at entry ${i}`);
    const madeBy = zip.readUInt16LE(offset + 4);
    const attributes = zip.readUInt32LE(offset + 38);
    const mode = attributes >>> 16;
    if (madeBy >> 8 === 3 && (mode & S_IFMT) === S_IFREG) {
      const wanted = S_IFREG | (mode & 0o100 ? 0o755 : 0o644);
      if (wanted !== mode) {
        zip.writeUInt32LE(((wanted << 16) | (attributes & 0xffff)) >>> 0, offset + 38);
        changed++;
      }
    }
    offset += 46 + zip.readUInt16LE(offset + 28) + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
  }
  if (changed) writeFileSync(file, zip);
  return changed;
}

class LambdaPackage {
  constructor(serverless, _options, { log } = {}) {
    process.env.npm_config_os = 'linux';
    process.env.npm_config_cpu = 'x64';
    process.env.npm_config_libc = 'glibc';
    this.serverless = serverless;
    this.log = log;
    this.hooks = { 'after:package:createDeploymentArtifacts': () => this.fixModes() };
  }

  fixModes() {
    const service = this.serverless.service;
    const artifacts = new Set([service.package?.artifact, ...service.getAllFunctions().map((name) => service.getFunction(name).package?.artifact)].filter(Boolean));
    for (const artifact of artifacts) {
      const changed = lambdaModes(artifact);
      if (changed) this.log?.verbose?.(`${artifact}: ${changed} file modes set to 0644/0755`);
    }
  }
}

module.exports = LambdaPackage;
module.exports.lambdaModes = lambdaModes;
