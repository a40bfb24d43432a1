/** The capacity model's small packaged stack (test/fixtures/capacity/), copied for each test so that a test may change it. */
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const FIXTURE = 'test/fixtures/capacity';
export const CALLS = `${FIXTURE}/calls-per-job.json`;
export const PAGE = `${FIXTURE}/capacity.md`;
export const SERVICE = `${FIXTURE}/serverless.yml`;
/** The nested template that holds the queue consumers. */
export const NESTED = 'cloudformation-template-consumers.json';

/** A fresh copy of the fixture package, in a folder of its own. */
export async function copiedPackage(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'capacity-'));
  await cp(`${FIXTURE}/package`, dir, { recursive: true });
  return dir;
}

/** Changes one template of a copied package. */
export async function editTemplate(dir: string, file: string, change: (template: any) => void): Promise<void> {
  const template = JSON.parse(await readFile(path.join(dir, file), 'utf8'));
  change(template);
  await writeFile(path.join(dir, file), JSON.stringify(template));
}
