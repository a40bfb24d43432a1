/**
 * What the function bundles hold, built with esbuild and serverless.yml's `custom.esbuild` options (as
 * serverless-esbuild builds them, in memory): the quick check beside scripts/ci/check-template.ts, which
 * measures the packaged zips.
 */
import { readFileSync } from 'node:fs';
import * as esbuild from 'esbuild';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { GRAPHIQL_ASSETS_DIR } from '#lib/graphql/server/graphiql-assets.js';

interface ServiceYaml {
  custom: { esbuild: Record<string, any> };
  functions: Record<string, { handler: string; events?: Array<Record<string, any>>; package?: { patterns?: string[] } }>;
}
const yml = parse(readFileSync('serverless.yml', 'utf8')) as ServiceYaml;

/** The options serverless-esbuild hands to esbuild (its own keys left out). */
function esbuildOptions(): esbuild.BuildOptions {
  const { bundle, target, platform, format, mainFields, external, alias, minify, minifyWhitespace, minifySyntax, minifyIdentifiers, keepNames } =
    yml.custom.esbuild;
  return { bundle, target, platform, format, mainFields, external, alias, minify, minifyWhitespace, minifySyntax, minifyIdentifiers, keepNames };
}

async function bundleOf(entry: string) {
  const result = await esbuild.build({ ...esbuildOptions(), entryPoints: [entry], write: false, metafile: true, outdir: 'out', logLevel: 'silent' });
  const inputs = Object.keys(result.metafile.inputs);
  /** The packages it requires from node_modules at run time (what serverless-esbuild packs in its zip). */
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external && !i.path.startsWith('node:')));
  const externals = new Set(imports.map((i) => i.path));
  /** Those it requires as it loads (not through a dynamic import, which runs only when its code path does). */
  const loaded = new Set(imports.filter((i) => i.kind !== 'dynamic-import').map((i) => i.path));
  return { bytes: result.outputFiles[0]!.contents.length, inputs, externals, loaded };
}

/** Packages (by folder below node_modules) in a bundle, with every copy's path. */
function packages(inputs: string[]): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const input of inputs) {
    const m = /^(.*node_modules\/((@[^/]+\/)?[^/]+))\//.exec(input);
    if (!m) continue;
    const name = m[2]!;
    found.set(name, (found.get(name) ?? new Set()).add(m[1]!));
  }
  return found;
}

describe('function bundles', () => {
  it('leave GraphiQL out of the GraphQL function and keep the assets function tiny', async () => {
    const graphql = await bundleOf('functions/graphql/handler.ts');
    expect(graphql.inputs.filter((i) => i.includes('render-graphiql'))).toEqual([]);
    const assets = await bundleOf('functions/graphql/assets.ts');
    expect(assets.inputs.filter((i) => i.includes('node_modules'))).toEqual([]);
    expect(assets.bytes).toBeLessThan(20_000);
  });

  it('give each engine function only its own family\'s engines (sharp, for the image limits, in every one)', async () => {
    const own: Record<string, string[]> = {
      // 7-Zip, ImageMagick and the font packages are read by their node children from their folders.
      image: ['sharp', 'archiver', 'exiftool-vendored', '@uswriting/exiftool', '@ffprobe-installer/ffprobe', '7z-wasm', '@imagemagick/magick-wasm', 'wawoff2', 'fonteditor-core'],
      media: ['sharp', '@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe'],
      pdf: ['sharp', '@okathira/ghostpdl-wasm', '@neslinesli93/qpdf-wasm', 'tesseract.js', '@tesseract.js-data/eng', '@tesseract.js-data/deu', 'pdfjs-dist'],
      chromium: ['sharp', '@sparticuz/chromium', 'puppeteer-core'],
      office: ['sharp'],
    };
    const engineFunctions = (yml.custom as Record<string, any>).engineFunctions as Record<string, string>;
    for (const [name, family] of Object.entries(engineFunctions)) {
      const { externals } = await bundleOf(`${yml.functions[name]!.handler.replace(/\.handler$/, '')}.ts`);
      const engines = [...externals].filter((e) => yml.custom.esbuild.external.includes(e));
      expect(engines.filter((e) => !own[family]!.includes(e)), `${name} packs another family's engine`).toEqual([]);
    }
    const chromium = await bundleOf('functions/tasks/process-chromium-step.ts');
    expect([...chromium.externals]).toContain('@sparticuz/chromium');
  });

  it('let a process function load without its engines, which its zip leaves out when its engine function runs them', async () => {
    // scripts/serverless-lambda-package.cjs packs no node_modules/ into a process function with
    // ENGINE_ISOLATION=function: an engine it required as it loads would fail its every cold start.
    const engineFunctions = (yml.custom as Record<string, any>).engineFunctions as Record<string, string>;
    for (const name of Object.keys(engineFunctions)) {
      const { externals, loaded } = await bundleOf(`${yml.functions[name]!.handler.replace(/\.handler$/, '')}.ts`);
      const packed = (yml.custom.esbuild.external as string[]).filter((e) => externals.has(e));
      expect(packed.length, `${name} names its engines`).toBeGreaterThan(0);
      expect(packed.filter((e) => loaded.has(e)), `${name} requires an engine as it loads`).toEqual([]);
    }
  });

  it('pack the built GraphiQL folder with the assets function', () => {
    const fn = Object.values(yml.functions).find((f) => f.handler === 'functions/graphql/assets.handler');
    expect(fn?.package?.patterns).toContain(`${GRAPHIQL_ASSETS_DIR}/**`);
    expect(fn?.events).toEqual([{ httpApi: { method: 'GET', path: '/graphql/assets/{file}' } }]);
  });

  it('take AWS credentials from the environment only: no profile, SSO, web-identity or metadata providers', async () => {
    const { inputs } = await bundleOf('functions/tasks/get.ts');
    expect(inputs).toContain('lib/wiring/lambda-credentials.ts');
    const present = [...packages(inputs).keys()];
    for (const absent of [
      '@aws-sdk/credential-provider-node',
      '@aws-sdk/credential-provider-ini',
      '@aws-sdk/credential-provider-sso',
      '@aws-sdk/credential-provider-web-identity',
      '@aws-sdk/nested-clients',
      '@smithy/credential-provider-imds',
    ]) {
      expect(present, absent).not.toContain(absent);
    }
  });

  it('hold one copy of each package (no second S3 client under the presigned-post helper)', async () => {
    const { inputs } = await bundleOf('functions/jobs/create.ts');
    const twice = [...packages(inputs)].filter(([, copies]) => copies.size > 1).map(([name, copies]) => `${name}: ${[...copies].join(', ')}`);
    expect(twice).toEqual([]);
  });
});
