/**
 * `npm run capacity`: the capacity model of the packaged stack (run `serverless package` first).
 *
 *   npm run capacity -- [--mix no-engine=3,thumbnail=1] [--rates 1,100,1000] [--tenants 1]
 *                       [--dir .serverless] [--calls bench/calls-per-job.json] [--service serverless.yml]
 *   npm run capacity -- --write-docs   rewrites the generated block of docs/operating/capacity.md
 *   npm run ci:capacity                (--check) fails when that block is not what the model gives
 *
 * docs/operating/capacity.md explains how to read the output.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { CALLS_PER_JOB_FILE } from './calls-per-job.js';
import { blockDifference, CAPACITY_DOC, modelReport, withBlock } from './docs.js';

const { values } = parseArgs({
  options: {
    mix: { type: 'string' },
    rates: { type: 'string' },
    tenants: { type: 'string' },
    dir: { type: 'string', default: '.serverless' },
    calls: { type: 'string', default: CALLS_PER_JOB_FILE },
    service: { type: 'string', default: 'serverless.yml' },
    docs: { type: 'string', default: CAPACITY_DOC },
    'write-docs': { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
  },
});

const positive = (text: string, what: string) => {
  const n = Number(text);
  if (!(n > 0)) throw new Error(`${what}: "${text}" is not a positive number`);
  return n;
};

async function main(): Promise<number> {
  const docsMode = values['write-docs'] || values.check;
  if (docsMode && (values.mix || values.rates || values.tenants)) throw new Error('the docs show the default mix, rates and tenants: --write-docs and --check take no --mix, --rates or --tenants');
  const text = await modelReport({
    dir: values.dir,
    calls: values.calls,
    serverlessYml: values.service,
    ...(values.mix ? { mix: values.mix } : {}),
    ...(values.rates ? { rates: values.rates.split(',').map((r) => positive(r, '--rates')) } : {}),
    ...(values.tenants ? { tenants: positive(values.tenants, '--tenants') } : {}),
  });
  if (!docsMode) {
    process.stdout.write(text);
    return 0;
  }
  const page = await readFile(values.docs, 'utf8');
  if (values['write-docs']) {
    await writeFile(values.docs, withBlock(page, text));
    console.log(`${values.docs}: generated block rewritten`);
    return 0;
  }
  const difference = blockDifference(page, text);
  if (!difference) {
    console.log(`${values.docs}: the generated block is what the packaged template and ${values.calls} give`);
    return 0;
  }
  console.error(`${values.docs}: the generated block differs from the model (template, calls per job or prices changed):\n${difference}\nRun \`npm run capacity -- --write-docs\` after \`serverless package\` and commit the page.`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
