/**
 * The office engines' Debian packages have one home, .ci/office-packages: CI installs that list and the
 * office container image installs the same (its handler is run outside Docker with those tools by
 * test/integration/office-function.test.ts), so what CI tests is what the cloud runs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const list = readFileSync('.ci/office-packages', 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

/** The final stage of a multi-stage Dockerfile (what the image holds). */
function finalStage(dockerfile: string): string {
  const stages = dockerfile.split(/^FROM\s/m);
  return stages[stages.length - 1]!;
}

describe('the office engines’ Debian packages', () => {
  it('are one package name per line', () => {
    expect(list.length).toBeGreaterThan(0);
    for (const name of list) expect(name).toMatch(/^[a-z0-9][a-z0-9+.-]+$/);
    expect(list).toEqual(expect.arrayContaining(['libreoffice-nogui', 'calibre', 'pandoc']));
  });

  it('are what CI installs, read from the list', () => {
    const run = readFileSync('.ci/run', 'utf8');
    expect(run).toMatch(/apt-get install[^\n]*\\\n[^\n]*\$\(grep -v '\^#' \.ci\/office-packages\)/);
  });

  it('are what the office image installs, read from the same list in its final stage', () => {
    const image = finalStage(readFileSync('Dockerfile', 'utf8'));
    expect(image).toMatch(/^COPY \.ci\/office-packages (\S+)$/m);
    const copied = /^COPY \.ci\/office-packages (\S+)$/m.exec(image)![1]!;
    expect(image).toContain(`apt-get install -y -qq --no-install-recommends \\\n      $(grep -v '^#' ${copied})`);
    // No office package named by hand beside the list.
    for (const name of ['libreoffice-writer-nogui', 'libreoffice-calc-nogui', 'calibre ', 'pandoc ']) expect(image).not.toContain(name);
  });
});
