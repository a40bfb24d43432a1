/**
 * `npm run formats -- --json` counts what GET /v2/convert/formats answers on this machine: its numbers
 * are recounted here from the handler's own answer (in-process, as the gateway would call it), with the
 * same environment, whatever engines the tree and the machine have. The filters narrow the same rows.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatFamily } from '#lib/file-api/operations/format-families.js';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';

interface Row {
  operation: string;
  input_format: string;
  output_format: string;
  engine: string;
  credits: number;
  meta: { group: string };
  options?: Array<{ name: string }>;
  engine_versions?: Array<{ version: string; default: boolean }>;
}

let state: Awaited<ReturnType<typeof startStateBackend>>;
let auth: Record<string, string>;
let formats: (query?: string) => Promise<Row[]>;

beforeAll(async () => {
  state = await startStateBackend();
  useLocalEnv({ dynamodb: state.endpoint, table: state.table });
  const { apiKeys } = await import('#lib/wiring/file-api.js');
  auth = { authorization: `Bearer ${(await apiKeys().create({ scopes: ['task.read'] })).key}` };
  const { handler } = await import('#functions/operations/convert-formats.js');
  formats = async (query = '') => {
    const res = await call(handler, { path: '/v2/convert/formats', query, headers: auth });
    expect(res.status).toBe(200);
    return res.json.data as Row[];
  };
});
afterAll(() => state?.close());

const distinct = (xs: string[]) => new Set(xs).size;

it('prints the counts of what GET /v2/convert/formats answers, in all and per family', { timeout: 120_000 }, async () => {
  const rows = await formats();
  const out = execFileSync(path.resolve('node_modules/.bin/tsx'), ['scripts/formats.ts', '--json'], { encoding: 'utf8', env: process.env });
  const report = JSON.parse(out) as { convert: { inputs: number; outputs: number; formats: number; pairs: number; families: Record<string, Record<string, number>> } };
  const ins = rows.map((r) => r.input_format);
  const outs = rows.map((r) => r.output_format);
  expect(report.convert).toMatchObject({
    inputs: distinct(ins),
    outputs: distinct(outs),
    formats: distinct([...ins, ...outs]),
    pairs: distinct(rows.map((r) => `${r.input_format}>${r.output_format}`)),
  });
  expect(rows.length).toBe(report.convert.pairs);
  for (const [family, counts] of Object.entries(report.convert.families)) {
    const produced = rows.filter((r) => r.meta.group === family);
    const inFamily = (f: string) => formatFamily(f) === family;
    expect({ family, ...counts }).toEqual({
      family,
      inputs: distinct(ins.filter(inFamily)),
      outputs: distinct(outs.filter(inFamily)),
      formats: distinct([...ins, ...outs].filter(inFamily)),
      pairs: produced.length,
    });
  }
  expect(Object.values(report.convert.families).reduce((sum, c) => sum + c.pairs!, 0)).toBe(rows.length);
});

it('lists each pair with its engine, versions, options and credits, and filters as CloudConvert does', async () => {
  const rows = await formats('include=options,engine_versions');
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    expect(r).toMatchObject({ operation: 'convert', credits: expect.any(Number), meta: { group: formatFamily(r.output_format) } });
    expect(typeof r.engine).toBe('string');
    expect(r.engine_versions?.some((v) => v.default)).toBe(true);
    expect(Array.isArray(r.options)).toBe(true);
  }
  const sample = rows[Math.floor(rows.length / 2)]!;
  const byInput = await formats(`filter%5Binput_format%5D=${sample.input_format.toUpperCase()}`);
  expect(byInput.length).toBeGreaterThan(0);
  expect(byInput.every((r) => r.input_format === sample.input_format && r.options === undefined)).toBe(true);
  const byPair = await formats(`filter[input_format]=${sample.input_format}&filter[output_format]=${sample.output_format}`);
  expect(byPair.map((r) => r.engine)).toEqual([sample.engine]);
  const byEngine = await formats(`filter[engine]=${sample.engine}&include=engine_versions`);
  expect(byEngine.length).toBeGreaterThanOrEqual(rows.filter((r) => r.engine === sample.engine).length);
  expect(byEngine.every((r) => r.engine === sample.engine && r.engine_versions !== undefined)).toBe(true);
  // GET /v2/operations?filter[operation]=convert answers the same rows.
  const { handler: list } = await import('#functions/operations/list.js');
  const operations = await call(list, { path: '/v2/operations', query: 'filter[operation]=convert&include=options,engine_versions', headers: auth });
  expect(operations.json.data).toEqual(rows);
});
