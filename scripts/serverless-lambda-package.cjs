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
 *
 * The zips also lose the files of their packages that Node never loads (`NEVER_LOADED`): type
 * declarations, the packages' own source maps (the bundles run without --enable-source-maps), their
 * Markdown and the C/C++ sources of native addons. serverless-esbuild packs an external package whole;
 * these are 22 MB of the Chromium functions and 5 MB of the image functions, against Lambda's 250 MB
 * unzipped (scripts/ci/check-limits.ts holds every function to 60 % of it; check-template.ts fails on
 * a zip that still holds one). Only files below node_modules/: a function's own `.cjs.map` is read by
 * its logger (lib/kernel/stack-map.ts).
 *
 * A process function whose engines run in its family's engine function (ENGINE_ISOLATION=function,
 * `invokesItsEngines` of scripts/serverless-engine-functions.cjs) carries nothing from node_modules/:
 * serverless-esbuild packs there only the externals its bundle names (custom.esbuild.external), all of
 * them engines, which its bundle names because it shares the engine function's operation table but
 * loads only when an engine runs in this process (they are loaded lazily, and `npm run ci:lambda` runs a
 * job of every family through the zips). The engines were half of each process function's zip: FFmpeg
 * and ffprobe alone 147 MB of processMedia.
 *
 * The static ffprobe is packed with brotli wherever a zip carries it (`PACKED`,
 * serverless-packed-binaries.cjs): 54 MB fewer unzipped bytes in the media and image engine functions.
 *
 * serverless-esbuild stages each zip in a folder of the system's temporary directory
 * (`<function>-<pid>-<ms>-<8 hex>`) and means to remove it afterwards, but its removal is not recursive
 * and fails quietly on the full folder: every `serverless package` left some 3 GB behind (the engines'
 * node_modules, once per function), and a few CI runs filled the disk. This plugin removes the folders of
 * its own process (`removeZipStaging`), once the zips are made and again when the process exits.
 */
'use strict';

const { Buffer } = require('node:buffer');
const { readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { invokesItsEngines } = require('./serverless-engine-functions.cjs');
const { NONE, PACKED, packEntry } = require('./serverless-packed-binaries.cjs');

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

/** Files below node_modules/ that Node never loads: type declarations, source maps, Markdown, C/C++ sources. */
const NEVER_LOADED_KINDS = /^node_modules\/.*(\.d\.[cm]?ts|\.map|\.md|\.markdown|\.cc|\.cpp|\.h|\.hpp|\.gypi?)$/i;
/**
 * Parts of packages no function loads: pdf.js's browser builds, viewer and minified copies (the pdfjs
 * child loads legacy/build/pdf.mjs and its worker), and @napi-rs/canvas, which pdf.js only tries to load
 * for rendering (lib/engines/pdfjs/child.ts stands in for it): some 40 MB of the pdf engine function.
 */
const UNUSED_PARTS = /^node_modules\/(?:@napi-rs\/canvas[^/]*\/|pdfjs-dist\/(?:build|web|image_decoders|types)\/|pdfjs-dist\/legacy\/(?:web\/|build\/pdf\.(?:sandbox|min|sandbox\.min|worker\.min)\.mjs$))/;
const NEVER_LOADED = new RegExp(`${NEVER_LOADED_KINDS.source}|${UNUSED_PARTS.source}`, 'i');
/** What a process function that invokes its engine function leaves out: all of node_modules/ (its engines). */
const ENGINELESS = /^node_modules\//;

/**
 * Rewrites a zip for Lambda: the entries whose name matches `drop` left out, those matching `pack`
 * compressed (serverless-packed-binaries.cjs), and the Unix modes of the rest set to 0644/0755 in its
 * central directory. Written back only when something changed. Returns the entries changed in mode,
 * the entries dropped, with their unzipped bytes, and the entries packed, with the unzipped bytes saved.
 */
function repack(file, drop = NEVER_LOADED, pack = NONE) {
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
  const centralStart = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || centralStart === 0xffffffff) throw new Error(`${file}: a zip64 archive; file modes not checked`);
  const entries = [];
  let changed = 0;
  for (let i = 0, offset = centralStart; i < count; i++) {
    if (zip.readUInt32LE(offset) !== CENTRAL) throw new Error(`${file}: corrupt central directory at entry ${i}`);
    const length = 46 + zip.readUInt16LE(offset + 28) + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
    const header = Buffer.from(zip.subarray(offset, offset + length));
    const name = header.toString('utf8', 46, 46 + header.readUInt16LE(28));
    const mode = header.readUInt32LE(38) >>> 16;
    if (header.readUInt16LE(4) >> 8 === 3 && (mode & S_IFMT) === S_IFREG) {
      const wanted = S_IFREG | (mode & 0o100 ? 0o755 : 0o644);
      if (wanted !== mode) {
        header.writeUInt32LE(((wanted << 16) | (header.readUInt32LE(38) & 0xffff)) >>> 0, 38);
        changed++;
      }
    }
    entries.push({ name, header, local: header.readUInt32LE(42), size: header.readUInt32LE(24) });
    offset += length;
  }
  // An entry's local record (header, data, data descriptor) runs to the next one's, or to the central directory.
  const starts = [...entries.map((e) => e.local), centralStart].sort((a, b) => a - b);
  const kept = entries.filter((e) => !drop.test(e.name));
  const dropped = entries.filter((e) => drop.test(e.name));
  const packing = kept.filter((e) => pack.test(e.name));
  const result = { changed, dropped: dropped.length, droppedBytes: dropped.reduce((n, e) => n + e.size, 0), packed: packing.length, packedSaved: 0 };
  if (!changed && !dropped.length && !packing.length) return result;
  const records = [];
  const central = [];
  let at = 0;
  const add = (record, header) => {
    header.writeUInt32LE(at, 42);
    records.push(record);
    central.push(header);
    at += record.length;
  };
  for (const entry of kept) {
    if (packing.includes(entry)) {
      const { entries: replacing, saved } = packEntry(zip, entry.header, entry.name);
      for (const e of replacing) add(e.record, e.header);
      result.packedSaved += saved;
    } else add(zip.subarray(entry.local, starts[starts.indexOf(entry.local) + 1]), entry.header);
  }
  const total = records.length;
  const end = Buffer.from(zip.subarray(eocd));
  const centralBytes = central.reduce((n, h) => n + h.length, 0);
  end.writeUInt16LE(total, 8);
  end.writeUInt16LE(total, 10);
  end.writeUInt32LE(centralBytes, 12);
  end.writeUInt32LE(at, 16);
  writeFileSync(file, Buffer.concat([...records, ...central, end]));
  return result;
}

/**
 * Removes the folders in which serverless-esbuild staged the zips of process `pid` (this one by default):
 * `<function>-<pid>-<epoch ms>-<8 hex>` directly in the temporary directory. Returns their names.
 */
function removeZipStaging(pid = process.pid, dir = tmpdir()) {
  const staging = new RegExp(`^[\\w.-]+-${Number(pid)}-\\d{10,}-[0-9a-f]{8}$`);
  let names;
  try {
    names = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && staging.test(e.name)).map((e) => e.name);
  } catch {
    return [];
  }
  for (const name of names) rmSync(path.join(dir, name), { recursive: true, force: true });
  return names;
}

class LambdaPackage {
  constructor(serverless, _options, { log } = {}) {
    process.env.npm_config_os = 'linux';
    process.env.npm_config_cpu = 'x64';
    process.env.npm_config_libc = 'glibc';
    this.serverless = serverless;
    this.log = log;
    this.hooks = {
      'after:package:createDeploymentArtifacts': () => {
        removeZipStaging();
        this.repackArtifacts();
      },
      'after:deploy:function:packageFunction': () => removeZipStaging(),
    };
    process.once('exit', () => removeZipStaging());
  }

  /** Each artifact rewritten once, by the rule of the functions it holds (the one that keeps more if they differ). */
  repackArtifacts() {
    const service = this.serverless.service;
    const rules = new Map();
    if (service.package?.artifact) rules.set(service.package.artifact, NEVER_LOADED);
    for (const name of service.getAllFunctions()) {
      const artifact = service.getFunction(name).package?.artifact;
      if (!artifact) continue;
      const rule = invokesItsEngines(this.serverless, name) ? ENGINELESS : NEVER_LOADED;
      rules.set(artifact, rules.has(artifact) && rules.get(artifact) !== rule ? NEVER_LOADED : rule);
    }
    for (const [artifact, rule] of rules) {
      const { changed, dropped, droppedBytes, packed, packedSaved } = repack(artifact, rule, PACKED);
      if (changed) this.log?.verbose?.(`${artifact}: ${changed} file modes set to 0644/0755`);
      if (dropped) this.log?.verbose?.(`${artifact}: ${dropped} files it never loads left out (${(droppedBytes / 1e6).toFixed(1)} MB)`);
      if (packed) this.log?.verbose?.(`${artifact}: ${packed} binaries packed with brotli (${(packedSaved / 1e6).toFixed(1)} MB fewer unzipped)`);
    }
  }
}

module.exports = LambdaPackage;
module.exports.repack = repack;
module.exports.removeZipStaging = removeZipStaging;
module.exports.NEVER_LOADED = NEVER_LOADED;
module.exports.ENGINELESS = ENGINELESS;
module.exports.PACKED = PACKED;
