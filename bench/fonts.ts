/**
 * Fonts for `npm run bench` (BENCH_ONLY=fonts): a TTF → WOFF2 job through the SDK and the whole
 * platform, and the fonteditor engine's confined node child alone, each against the bare woff2
 * encoder (wawoff2, warm, in this process) on the same font; medians, as ratios.
 *
 * The font is drawn here (opentype.js, 600 glyphs of a few cubic curves each) and converted to
 * TrueType outlines by fonteditor-core, as the tests make theirs.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFont } from 'fonteditor-core';
import opentype from 'opentype.js';
import { compress } from 'wawoff2';
import { parseConfig } from '#lib/kernel/config.js';
import type { EngineCall } from '#lib/engines/core/call.js';
import { confinement } from '#lib/engines/core/confine.js';
import { convertFont } from '#lib/engines/font/convert.js';
import { createLogger } from '#lib/kernel/log.js';
import type { Emulator } from '../local/emulator.js';
import { cloudConvertClient } from '../test/support/cloudconvert.js';
import { TEST_CONFIG_ENV } from '../test/support/recording-queue.js';
import { median } from './measure.js';

function benchTtf(glyphCount = 600): Buffer {
  const glyphs = [new opentype.Glyph({ name: '.notdef', advanceWidth: 500, path: new opentype.Path() })];
  for (let i = 0; i < glyphCount; i++) {
    const p = new opentype.Path();
    p.moveTo(50 + (i % 7) * 10, 0);
    for (let k = 0; k < 6; k++) p.curveTo(100 + k * 60, 200 + ((i * k) % 300), 200 + k * 50, 500 - ((i + k) % 200), 300 + k * 30, (k * 97 + i) % 700);
    p.close();
    glyphs.push(new opentype.Glyph({ name: `g${i}`, unicode: 0x4e00 + i, advanceWidth: 600 + (i % 50), path: p }));
  }
  const otf = Buffer.from(new opentype.Font({ familyName: 'Bench Sans', styleName: 'Regular', unitsPerEm: 1000, ascender: 800, descender: -200, glyphs }).toArrayBuffer());
  return createFont(otf, { type: 'otf' }).write({ type: 'ttf', toBuffer: true }) as Buffer;
}

/** The engine's handler on `ttf` as a task would call it (its child under this machine's confinement). */
function childRun(ttf: Buffer, dir: string): () => Promise<number> {
  const config = parseConfig({ ...process.env, ...TEST_CONFIG_ENV });
  let n = 0;
  return async () => {
    const work = path.join(dir, `call-${++n}`);
    mkdirSync(path.join(work, 'out'), { recursive: true });
    const input = path.join(work, 'bench.ttf');
    writeFileSync(input, ttf);
    const ac = new AbortController();
    const call = {
      payload: { output_format: 'woff2' },
      inputs: [{ path: input, filename: 'bench.ttf', format: 'ttf', size: ttf.length, taskId: 'bench' }],
      tool: { cwd: work, workDir: work, confinement: confinement(config), signal: ac.signal },
      config,
      log: createLogger({}, { level: 'silent' }),
      output: (name: string) => path.join(work, 'out', name),
      names: (ext: string) => [`bench.${ext}`],
    } as unknown as EngineCall<{ output_format: string }>;
    const t = performance.now();
    await convertFont(call);
    return performance.now() - t;
  };
}

export async function fontRatios(platform: Emulator, runs = 10): Promise<string[]> {
  const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const ttf = benchTtf();
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-fonts-'));
  try {
    await compress(ttf);
    const bare = async () => {
      const t = performance.now();
      await compress(ttf);
      return performance.now() - t;
    };
    const child = childRun(ttf, dir);
    const job = async () => {
      const t = performance.now();
      const created = await cc.jobs.create({
        tasks: {
          ttf: { operation: 'import/base64', file: ttf.toString('base64'), filename: 'bench.ttf' },
          woff2: { operation: 'convert', input: 'ttf', output_format: 'woff2' },
          out: { operation: 'export/url', input: 'woff2' },
        },
      } as never);
      const done = await cc.jobs.wait(created.id);
      await (await fetch(done.tasks.find((t) => t.name === 'out')!.result!.files![0]!.url!)).arrayBuffer();
      return performance.now() - t;
    };
    const sample = async (f: () => Promise<number>) => {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push(await f());
      return median(times);
    };
    const [bareMs, childMs, jobMs] = [await sample(bare), await sample(child), await sample(job)];
    return [
      `fonts, TTF → WOFF2 of ${(ttf.length / 1024).toFixed(0)} KB (600 glyphs), medians of ${runs}: bare wawoff2 ${bareMs.toFixed(0)} ms; ` +
        `the engine's confined child ${childMs.toFixed(0)} ms (${(childMs / bareMs).toFixed(1)}× bare); the job through the SDK ${jobMs.toFixed(0)} ms (${(jobMs / bareMs).toFixed(1)}× bare)`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
