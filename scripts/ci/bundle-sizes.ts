/**
 * CI check after `serverless package`: every HTTP function's JavaScript bundle stays within the limit
 * (1.5 MB, decimal: a cold start compiles all of it), and no HTTP function ships a source map with
 * the sources inside. Reads the template (.serverless/cloudformation-template-update-stack.json) to know
 * each function's zip and handler and which functions API Gateway invokes, and the zips' central
 * directories with Node alone (no unzip tool). Prints one row per function; exits 1 with the reasons
 * when a check fails.
 *
 *   node --import tsx scripts/ci/bundle-sizes.ts [--dir .serverless] [--limit 1500000]
 */
import { open } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateRawSync } from 'node:zlib';

/** The largest JavaScript bundle an HTTP function may have, in bytes. */
export const HTTP_BUNDLE_LIMIT = 1_500_000;

export interface ZipEntry {
  name: string;
  /** Uncompressed size. */
  size: number;
  compressedSize: number;
  method: number;
  localHeaderOffset: number;
}

export interface ZipFile {
  entries: ZipEntry[];
  /** The uncompressed bytes of one entry. */
  read(entry: ZipEntry): Promise<Buffer>;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Lists a zip from its central directory and reads entries on demand (stored or deflated). */
export async function readZip(file: string): Promise<ZipFile> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    // The end-of-central-directory record is the last 22 bytes, before a comment of at most 64 KiB.
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let i = tailLength - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new Error(`${file}: not a zip (no end of central directory)`);
    const count = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (count === 0xffff || cdOffset === 0xffffffff) throw new Error(`${file}: ZIP64 archives are not supported`);
    const cd = Buffer.alloc(cdSize);
    await handle.read(cd, 0, cdSize, cdOffset);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let i = 0; i < count; i++) {
      if (cd.readUInt32LE(p) !== CENTRAL) throw new Error(`${file}: damaged central directory`);
      const nameLength = cd.readUInt16LE(p + 28);
      const extraLength = cd.readUInt16LE(p + 30);
      const commentLength = cd.readUInt16LE(p + 32);
      const name = cd.toString('utf8', p + 46, p + 46 + nameLength);
      if (!name.endsWith('/')) {
        entries.push({
          name,
          method: cd.readUInt16LE(p + 10),
          compressedSize: cd.readUInt32LE(p + 20),
          size: cd.readUInt32LE(p + 24),
          localHeaderOffset: cd.readUInt32LE(p + 42),
        });
      }
      p += 46 + nameLength + extraLength + commentLength;
    }
    return {
      entries,
      async read(entry) {
        const h = await open(file, 'r');
        try {
          const header = Buffer.alloc(30);
          await h.read(header, 0, 30, entry.localHeaderOffset);
          if (header.readUInt32LE(0) !== LOCAL) throw new Error(`${file}: ${entry.name}: damaged local header`);
          const start = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
          const data = Buffer.alloc(entry.compressedSize);
          await h.read(data, 0, entry.compressedSize, start);
          if (entry.method === 0) return data;
          if (entry.method === 8) return inflateRawSync(data);
          throw new Error(`${file}: ${entry.name}: compression method ${entry.method} is not supported`);
        } finally {
          await h.close();
        }
      },
    };
  } finally {
    await handle.close();
  }
}

export interface TemplateFunction {
  /** The function's key in serverless.yml (its zip's name). */
  name: string;
  logicalId: string;
  /** `functions/jobs/create.handler` */
  handler: string;
  /** Invoked by the HTTP API (an integration or an API Gateway permission points at it). */
  http: boolean;
  /** `arm64` or `x86_64` (Lambda's default when the template names none). */
  architecture: string;
  environment: Record<string, unknown>;
}

type Resource = { Type: string; Properties?: Record<string, any> };

/** The logical id a `{ "Fn::GetAtt": [id, "Arn"] }` (or a `Fn::Join` around one) refers to. */
function referencedFunction(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, any>;
  if (Array.isArray(v['Fn::GetAtt'])) return String(v['Fn::GetAtt'][0]);
  if (Array.isArray(v['Fn::Join'])) {
    for (const part of v['Fn::Join'][1] ?? []) {
      const id = referencedFunction(part);
      if (id) return id;
    }
  }
  if (typeof v.Ref === 'string') return v.Ref;
  return undefined;
}

/** The Lambda functions of a CloudFormation template generated by `serverless package`. */
export function templateFunctions(template: { Resources: Record<string, Resource> }): TemplateFunction[] {
  const resources = Object.entries(template.Resources);
  const httpIds = new Set<string>();
  for (const [, r] of resources) {
    if (r.Type === 'AWS::ApiGatewayV2::Integration') {
      const id = referencedFunction(r.Properties?.IntegrationUri);
      if (id) httpIds.add(id);
    }
    if (r.Type === 'AWS::Lambda::Permission' && String(r.Properties?.Principal ?? '').startsWith('apigateway.')) {
      const id = referencedFunction(r.Properties?.FunctionName);
      if (id) httpIds.add(id);
    }
  }
  return resources
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([logicalId, r]) => {
      const key = String(r.Properties?.Code?.S3Key ?? '');
      return {
        name: path.posix.basename(key, '.zip') || logicalId,
        logicalId,
        handler: String(r.Properties?.Handler ?? ''),
        http: httpIds.has(logicalId),
        architecture: String(r.Properties?.Architectures?.[0] ?? 'x86_64'),
        environment: (r.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>,
      };
    })
    .sort((a, b) => Number(b.http) - Number(a.http) || a.name.localeCompare(b.name));
}

/** The bundle of a handler (`functions/jobs/create.handler` → `functions/jobs/create.cjs`) among a zip's entries. */
export function bundleEntry(entries: ZipEntry[], handler: string): ZipEntry | undefined {
  const module = handler.slice(0, handler.lastIndexOf('.'));
  return entries.find((e) => ['.cjs', '.js', '.mjs'].some((ext) => e.name === module + ext));
}

export interface ArtifactSize {
  name: string;
  handler: string;
  http: boolean;
  architecture: string;
  zip: string;
  zipBytes: number;
  unzippedBytes: number;
  bundle?: string;
  bundleBytes?: number;
  /** Source maps in the zip that carry their sources (`sourcesContent`). */
  mapsWithSources: string[];
  problems: string[];
}

const statSize = async (file: string) => {
  const h = await open(file, 'r');
  try {
    return (await h.stat()).size;
  } finally {
    await h.close();
  }
};

/** Sizes of every function's artifact in a `serverless package` output folder. */
export async function artifactSizes(dir: string): Promise<ArtifactSize[]> {
  const template = JSON.parse(readFileSync(path.join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
  const out: ArtifactSize[] = [];
  for (const fn of templateFunctions(template)) {
    const zip = path.join(dir, `${fn.name}.zip`);
    const row: ArtifactSize = { name: fn.name, handler: fn.handler, http: fn.http, architecture: fn.architecture, zip, zipBytes: 0, unzippedBytes: 0, mapsWithSources: [], problems: [] };
    out.push(row);
    let archive: ZipFile;
    try {
      row.zipBytes = await statSize(zip);
      archive = await readZip(zip);
    } catch (err) {
      row.problems.push(`cannot read ${zip}: ${(err as Error).message}`);
      continue;
    }
    row.unzippedBytes = archive.entries.reduce((sum, e) => sum + e.size, 0);
    const bundle = bundleEntry(archive.entries, fn.handler);
    if (!bundle) {
      row.problems.push(`no bundle for handler ${fn.handler} in ${path.basename(zip)}`);
      continue;
    }
    row.bundle = bundle.name;
    row.bundleBytes = bundle.size;
    if (fn.http) {
      for (const entry of archive.entries.filter((e) => e.name.endsWith('.map') && !e.name.includes('node_modules/'))) {
        const map = JSON.parse((await archive.read(entry)).toString('utf8')) as { sourcesContent?: Array<string | null> };
        if (map.sourcesContent?.some((s) => s != null)) row.mapsWithSources.push(entry.name);
      }
    }
  }
  return out;
}

const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : `${(bytes / 1e6).toFixed(2)} MB`);

/** The reasons the check fails, one line each (empty: it passes). */
export function failures(rows: ArtifactSize[], limit = HTTP_BUNDLE_LIMIT): string[] {
  const out: string[] = [];
  for (const row of rows) {
    for (const problem of row.problems) out.push(`${row.name}: ${problem}`);
    if (!row.http) continue;
    if (row.bundleBytes !== undefined && row.bundleBytes > limit) {
      out.push(`${row.name}: bundle ${row.bundle} is ${mb(row.bundleBytes)}, over the ${mb(limit)} limit of HTTP functions`);
    }
    for (const map of row.mapsWithSources) out.push(`${row.name}: ${map} carries sourcesContent (set custom.esbuild.sourcesContent: false)`);
  }
  return out;
}

export function sizeTable(rows: ArtifactSize[]): string {
  const head = ['function', 'http', 'zip', 'unzipped', 'bundle', 'architecture'];
  const body = rows.map((r) => [r.name, r.http ? 'http' : '-', mb(r.zipBytes), mb(r.unzippedBytes), mb(r.bundleBytes), r.architecture]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 || i === 5 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(head), ...body.map(line)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const dir = path.resolve(arg('--dir') ?? '.serverless');
  const limit = Number(arg('--limit') ?? HTTP_BUNDLE_LIMIT);
  const rows = await artifactSizes(dir);
  console.log(sizeTable(rows));
  const failed = failures(rows, limit);
  if (failed.length) {
    console.log(`\nbundle-size check failed:\n${failed.map((f) => `  ${f}`).join('\n')}`);
    return 1;
  }
  console.log(`\nbundle-size check passed: ${rows.filter((r) => r.http).length} HTTP functions, each bundle within ${mb(limit)}`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
