/**
 * Discovery (`GET /v2/operations`, `GET /v2/convert/formats`): what this installation can run, one
 * row per operation, input format, output format and engine, generated from the engine registry (only
 * installed engines) and the operation schemas that validate the requests (the options, their types,
 * defaults and possible values). The rows are made once per registry (the process has one) and
 * each request filters them; `meta.group` is the family of the format a row produces, as CloudConvert's.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import * as z from 'zod';
import type { HttpResponse } from '../../http/types.js';
import { formatFamily } from './format-families.js';
import { normalizeFormat } from '../../engines/core/formats.js';
import { versionMatches, type EngineRegistry, type EngineRow, type EngineVersionView } from '../../engines/core/registry.js';
import { engineRegistry } from './engines.js';
import type { OperationDefinition } from './framework/define.js';
import { operationDefinition, operationNames } from './index.js';
import { common } from './framework/fields.js';

export const discoveryQuery = z.looseObject({
  'filter[operation]': z.string().trim().min(1).optional(),
  'filter[input_format]': z.string().trim().min(1).optional(),
  'filter[output_format]': z.string().trim().min(1).optional(),
  'filter[engine]': z.string().trim().min(1).optional(),
  'filter[engine_version]': z.string().trim().min(1).optional(),
  include: z.string().optional(),
  alternatives: z.enum(['true', 'false', '1', '0']).optional(),
  /** The official SDKs' name for it (the Java SDK's `alternative`). */
  alternative: z.enum(['true', 'false', '1', '0']).optional(),
});
export type DiscoveryQuery = z.infer<typeof discoveryQuery>;

export interface OptionView {
  name: string;
  type: 'string' | 'integer' | 'float' | 'boolean' | 'enum' | 'dictionary';
  default: unknown;
  possible_values?: unknown[];
  description?: string;
}

export interface OperationView {
  operation: string;
  input_format: string | null;
  output_format: string | null;
  engine: string | null;
  credits: number;
  deprecated: boolean;
  experimental: boolean;
  meta: { group: string };
  options?: OptionView[];
  engine_versions?: Array<{ version: string; default: boolean; latest: boolean; deprecated: boolean; experimental: boolean }>;
}

/**
 * Arguments every task has; discovery lists only what is particular to an operation. An import's
 * `filename` is its own (the name the imported file gets, needed by import/raw and import/base64), so
 * imports list it.
 */
const COMMON = new Set([...Object.keys(common), 'filename', 'input_format', 'output_format', 'operation']);
const isCommon = (spec: OperationDefinition, name: string) => COMMON.has(name) && !(name === 'filename' && spec.step === 'import');

/** An argument of a schema as discovery describes it. */
export function optionView(name: string, schema: z.ZodType): OptionView {
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, any>;
  const meta = (schema.meta() ?? {}) as { default?: unknown; description?: string };
  const types = ([] as string[]).concat(js.type ?? []);
  let type: OptionView['type'] = 'string';
  if (Array.isArray(js.enum)) type = 'enum';
  else if (types.length === 1 && types[0] === 'integer') type = 'integer';
  else if (types.length === 1 && types[0] === 'number') type = 'float';
  else if (types.length === 1 && types[0] === 'boolean') type = 'boolean';
  else if (types.length === 1 && types[0] === 'object') type = 'dictionary';
  return {
    name,
    type,
    default: meta.default ?? js.default ?? null,
    ...(type === 'enum' ? { possible_values: js.enum as unknown[] } : {}),
    ...(meta.description ?? js.description ? { description: meta.description ?? js.description } : {}),
  };
}

function optionsOf(spec: OperationDefinition | undefined, names: readonly string[] | undefined): OptionView[] {
  if (!spec) return [];
  const shape = spec.schema.shape as Record<string, z.ZodType>;
  const wanted = names ?? Object.keys(shape).filter((n) => !isCommon(spec, n));
  return wanted.filter((n) => shape[n] !== undefined).map((n) => optionView(n, shape[n]!));
}

const truthy = (v: string | undefined) => v === 'true' || v === '1';

/** One row, computed once per registry; what a request gets is a copy of `view`. */
interface Entry {
  view: OperationView;
  isDefault: boolean;
  versions: EngineVersionView[];
  spec: OperationDefinition | undefined;
  optionNames: readonly string[] | undefined;
}

/** The options of an operation's rows, by operation and the capability's option names: many rows share them. */
const optionViews = new Map<string, OptionView[]>();
function optionsFor(entry: Entry): OptionView[] {
  const key = `${entry.view.operation}\0${entry.optionNames?.join(',') ?? '*'}`;
  let views = optionViews.get(key);
  if (!views) optionViews.set(key, (views = optionsOf(entry.spec, entry.optionNames)));
  return views;
}

/**
 * Every row this registry answers with, before filters: its engines are probed once, and the rows
 * (1,500 and more pairs) are made once per process, not per request.
 */
const entriesOf = new WeakMap<EngineRegistry, Entry[]>();
function entries(registry: EngineRegistry): Entry[] {
  const cached = entriesOf.get(registry);
  if (cached) return cached;
  const specs = new Map<string, OperationDefinition>(operationNames().map((name) => [name, operationDefinition(name)!]));
  const rows: Array<EngineRow | { operation: string; inputFormat: null; outputFormat: null; engine: null; capability?: undefined; isDefault?: undefined }> = [
    ...registry.rows(),
  ];
  // Operations without engines (imports, exports): one row each, no formats.
  const served = new Set(rows.map((r) => r.operation));
  for (const name of specs.keys()) if (!served.has(name)) rows.push({ operation: name, inputFormat: null, outputFormat: null, engine: null });
  const built = rows.map((row): Entry => ({
    view: {
      operation: row.operation,
      input_format: row.inputFormat,
      output_format: row.outputFormat,
      engine: row.engine,
      credits: row.capability ? (row.capability.credits ?? 1) : 0,
      deprecated: false,
      experimental: false,
      // CloudConvert groups a pair by what it produces (3gp → mp3 is `audio`).
      meta: { group: formatFamily(row.outputFormat ?? row.inputFormat) },
    },
    isDefault: row.isDefault ?? true,
    versions: row.engine ? registry.versions(row.engine) : [],
    spec: specs.get(row.operation),
    optionNames: row.capability?.options,
  }));
  entriesOf.set(registry, built);
  return built;
}

/** The discovery rows for a query, `restrictTo` an operation for `/v2/convert/formats`. */
export function discover(query: DiscoveryQuery, opts: { restrictTo?: string; registry?: EngineRegistry } = {}): OperationView[] {
  const registry = opts.registry ?? engineRegistry();
  const include = new Set((query.include ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  const operation = opts.restrictTo ?? query['filter[operation]'];
  const input = query['filter[input_format]'] ? normalizeFormat(query['filter[input_format]']) : undefined;
  const output = query['filter[output_format]'] ? normalizeFormat(query['filter[output_format]']) : undefined;
  const engine = query['filter[engine]'];
  const version = query['filter[engine_version]'];
  // Non-default engines only on request (or when asked for by name or version).
  const alternatives = truthy(query.alternatives) || truthy(query.alternative) || engine !== undefined || version !== undefined;

  const out: OperationView[] = [];
  for (const entry of entries(registry)) {
    const row = entry.view;
    if (operation !== undefined && row.operation !== operation) continue;
    if (input !== undefined && row.input_format !== input) continue;
    if (output !== undefined && row.output_format !== output) continue;
    if (engine !== undefined && row.engine !== engine) continue;
    if (!entry.isDefault && !alternatives) continue;
    if (version !== undefined && !entry.versions.some((v) => versionMatches(v.version, version))) continue;
    out.push({
      ...row,
      meta: { ...row.meta },
      ...(include.has('options') ? { options: optionsFor(entry) } : {}),
      ...(include.has('engine_versions') ? { engine_versions: entry.versions.map((v) => ({ ...v })) } : {}),
    });
  }
  return out;
}

/**
 * Answers from this size on are gzipped for a client that takes gzip: a Lambda answer may not exceed
 * 6 MB, and 1,500 pairs with their options come near (bench/discovery.ts measures it); the rows'
 * repetition makes them 20 to 50 times smaller.
 */
const GZIP_FROM_BYTES = 256 * 1024;
const gzipped = promisify(gzip);

/** Whether an Accept-Encoding takes gzip (`gzip`, `x-gzip` or `*`, with a q above 0). */
function takesGzip(acceptEncoding: string | undefined): boolean {
  const q = new Map<string, number>();
  for (const item of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [coding, ...params] = item.split(';').map((p) => p.trim());
    if (!coding) continue;
    const weight = params.find((p) => p.startsWith('q='));
    q.set(coding, weight ? Number(weight.slice(2)) : 1);
  }
  return (q.get('gzip') ?? q.get('x-gzip') ?? q.get('*') ?? 0) > 0;
}

/** The HTTP answer of discovery's routes: `{ data: rows }`, gzipped when large and the client takes it. */
export async function discoveryResponse(rows: OperationView[], acceptEncoding: string | undefined): Promise<HttpResponse> {
  const text = JSON.stringify({ data: rows });
  const headers: Record<string, string> = { 'content-type': 'application/json', vary: 'accept-encoding' };
  if (text.length < GZIP_FROM_BYTES || !takesGzip(acceptEncoding)) return { status: 200, headers, body: text };
  return { status: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: await gzipped(text, { level: 6 }) };
}
