/**
 * The functions ship minified bundles with a source map beside them (no sources inside) and run without
 * `--enable-source-maps` (it costs every cold start): the logger maps the stack of a logged error back
 * to the TypeScript files, reading the map only when an error is logged.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#lib/kernel/log.js';

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'log-maps-'));
  writeFileSync(
    path.join(dir, 'orders.ts'),
    [
      'export interface Order { id: string }',
      '',
      'export function chargeOrder(order: Order): never {',
      "  throw new Error(`card declined for ${order.id}`);",
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'handler.ts'), "import { chargeOrder } from './orders';\nexport const handler = () => chargeOrder({ id: 'o-1' });\n");
  bundle = path.join(dir, 'out', 'functions', 'orders', 'handler.cjs');
  // As serverless.yml's custom.esbuild builds the functions.
  await esbuild.build({
    entryPoints: [path.join(dir, 'handler.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function loggedError(): { stack: string } {
  const { handler } = createRequire(import.meta.url)(bundle) as { handler: () => void };
  const lines: string[] = [];
  const log = createLogger({}, { write: (l) => lines.push(l) });
  try {
    handler();
  } catch (err) {
    log.error('charge failed', { error: err });
  }
  return (JSON.parse(lines[0]!) as { error: { stack: string } }).error;
}

describe('stack traces of bundled functions in the logs', () => {
  it('name the TypeScript file, line and function that threw, not the bundle position', () => {
    const bundled = readFileSync(bundle, 'utf8');
    expect(bundled.split('\n').length).toBeLessThan(10);
    expect(JSON.parse(readFileSync(`${bundle}.map`, 'utf8'))).not.toHaveProperty('sourcesContent');

    const { stack } = loggedError();
    expect(stack).toContain('card declined for o-1');
    expect(stack).toMatch(/at chargeOrder \(.*orders\.ts:4:\d+\)/);
    expect(stack).toMatch(/handler\.ts:2:\d+/);
    expect(stack).not.toMatch(/handler\.cjs:\d+:\d+/);
  });

  it('leave a stack as it is when its files have no map beside them', () => {
    const lines: string[] = [];
    const err = new Error('plain');
    createLogger({}, { write: (l) => lines.push(l) }).error('x', { error: err });
    expect((JSON.parse(lines[0]!) as { error: { stack: string } }).error.stack).toBe(err.stack);
  });
});
