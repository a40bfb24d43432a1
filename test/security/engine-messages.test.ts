/**
 * Class 8 of issue 10 (what engines say): a task's message never carries this machine's temporary
 * paths, whichever engine or library failed. A tool's error output stays in the log; a library error
 * quoted in an engine's message (libheif names the file it read on every failed seek) shows the file's
 * name instead of its path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { withoutLocalPaths } from '#lib/file-api/operations/engine-task.js';
import { base64, startEngineHarness, type Harness } from '../integration/engines-harness.js';

/** An AVIF file cut short after its `ftyp` box: libheif fails with the file's path on each line. */
const truncatedAvif = () => Buffer.concat([Buffer.from([0, 0, 0, 0x1c]), Buffer.from('ftypavif\0\0\0\0avifmif1miaf', 'latin1')]);

describe('task messages of failing engines', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startEngineHarness();
  });
  afterAll(() => h?.close());

  it.each([
    ['convert', { operation: 'convert', input: 'in', output_format: 'png' }],
    ['thumbnail', { operation: 'thumbnail', input: 'in', output_format: 'png', width: 32 }],
    ['metadata', { operation: 'metadata', input: 'in' }],
  ])('%s of a truncated AVIF fails with a message that names no temporary path', async (_label, task) => {
    const t = await h.run({ in: base64(truncatedAvif(), 'photo.avif'), t: task });
    expect(t.t!.status, JSON.stringify(t.t)).toBe('error');
    const message = t.t!.message ?? '';
    expect(message.length).toBeGreaterThan(0);
    expect(message).not.toContain(tmpdir());
    expect(message).not.toMatch(/engine-[A-Za-z0-9]{6}/);
  });
});

describe('withoutLocalPaths', () => {
  it('shows each path under the root as its last segment, and leaves the rest alone', () => {
    const root = '/var/tmp/engines';
    expect(withoutLocalPaths(`${root}/engine-Ab12Cd/in/0-photo.avif: bad seek to 16\n${root}/engine-Ab12Cd/in/0-photo.avif: bad seek`, root)).toBe(
      '0-photo.avif: bad seek to 16\n0-photo.avif: bad seek',
    );
    expect(withoutLocalPaths(`cannot open "${root}/engine-x/call-1/out/a b.pdf".`, root)).toBe('cannot open "a b.pdf".');
    expect(withoutLocalPaths('no path here: /usr/bin/qpdf failed', root)).toBe('no path here: /usr/bin/qpdf failed');
  });
});
