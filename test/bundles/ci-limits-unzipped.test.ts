/**
 * scripts/ci/check-limits.ts on the unzipped size of functions' packages: real zips (written with
 * archiver, hence this tier) of a function above 60 % of Lambda's 250 MB fail, unless the accepted
 * margin names that function. The other limits are tested in test/unit/ci-limits-check.test.ts.
 */
import { ZipArchive } from 'archiver';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_MARGINS, checkLimits, LIMITS } from '../../scripts/ci/check-limits.js';
import { limitsStack as stack } from '../support/limits-stack.js';

/** A zip of one file of `bytes` zeros (deflated, so small on disk). */
async function zeros(file: string, bytes: number) {
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const done = pipeline(archive, createWriteStream(file));
  const chunk = Buffer.alloc(1 << 20);
  const body = Readable.from((function* () {
    for (let left = bytes; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
  })());
  archive.append(body, { name: 'node_modules/engine/bin' });
  await archive.finalize();
  await done;
}

describe('the limits check on packages', () => {
  it("holds every function's unzipped package to 60 % of 250 MB, but those its accepted margin names", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'limits-'));
    try {
      const [accepted] = ACCEPTED_MARGINS['unzipped bytes']?.only ?? ['EngineMediaLambdaFunction'];
      const s = stack(40);
      const code = (key: string) => ({ Code: { S3Key: `deploy/${key}.zip` } });
      Object.assign(s.root.template.Resources.F0!.Properties!, code('other'));
      s.root.template.Resources[accepted!] = { Type: 'AWS::Lambda::Function', Properties: code('accepted') };
      // 63 % of 250 MB each: above 60 %, within an accepted margin of 25 % (75 %).
      const over = Math.round(0.63 * LIMITS.unzippedBytes);
      await zeros(path.join(dir, 'other.zip'), over);
      await zeros(path.join(dir, 'accepted.zip'), over);
      const unzipped = (r: Awaited<ReturnType<typeof checkLimits>>) => r.failures.filter((f) => f.includes('unzipped bytes'));
      expect(unzipped(await checkLimits(s, dir))).toEqual([expect.stringMatching(/^F0: unzipped bytes .* above 60 %/)]);
      await zeros(path.join(dir, 'other.zip'), 1000);
      expect(unzipped(await checkLimits(s, dir))).toEqual(ACCEPTED_MARGINS['unzipped bytes'] ? [] : [expect.stringMatching(new RegExp(`^${accepted}: unzipped bytes`))]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

});
