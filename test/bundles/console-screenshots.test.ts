/**
 * The README's pictures of the console stay current: docs/images/console-screenshots.json names the
 * console build they were taken of (scripts/console-screenshots.ts, `npm run screenshots`), and a build
 * of today's sources must make the same files. The pictures are PNGs of the page's width, and the
 * README shows both.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { buildConsoleAssets } from '#lib/web/console/build.js';

const RECORD = 'docs/images/console-screenshots.json';
const PICTURES = ['docs/images/console-convert.png', 'docs/images/console-job.png'];

describe('the README pictures of the console', () => {
  it('show the console as built from today’s sources (else run `npm run screenshots`)', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'console-screenshots-'));
    try {
      const built = await buildConsoleAssets(work);
      const record = JSON.parse(readFileSync(RECORD, 'utf8')) as { script: string; style: string };
      expect(record, 'the console changed since the pictures were taken: run `npm run screenshots`').toEqual({ script: built.script, style: built.style });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('are pictures of the page, and the README shows them', async () => {
    const readme = readFileSync('README.md', 'utf8');
    for (const picture of PICTURES) {
      const meta = await sharp(picture).metadata();
      expect([meta.format, meta.width], picture).toEqual(['png', 1200]);
      expect(readme).toContain(`(${picture})`);
    }
  });
});
