/**
 * The bundled Chromium as Lambda's Node 22 runtime unpacks it: @sparticuz/chromium then also unpacks
 * Amazon Linux 2023's libraries and, when loaded, points LD_LIBRARY_PATH and FONTCONFIG_PATH at the
 * temp folder's `al2023/lib` and `fonts`. The browser is given its own folder's instead (where its
 * fonts.conf now names its fonts), not what another version left in the temp folder. The browser is not
 * started: its libraries are Amazon Linux's.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const saved = { TMPDIR: process.env.TMPDIR, AWS_EXECUTION_ENV: process.env.AWS_EXECUTION_ENV, FONTCONFIG_PATH: process.env.FONTCONFIG_PATH, LD_LIBRARY_PATH: process.env.LD_LIBRARY_PATH };
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'chrome-unpack-lambda-'));
  // What another version left: its libraries' folder.
  mkdirSync(path.join(tmp, 'al2023', 'lib'), { recursive: true });
  Object.assign(process.env, { TMPDIR: tmp, AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' });
  delete process.env.FONTCONFIG_PATH;
  process.env.LD_LIBRARY_PATH = '/var/lang/lib:/lib64';
});

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(tmp, { recursive: true, force: true });
});

it('gives the browser the libraries and fonts of its own folder', { timeout: 180_000 }, async () => {
  const { bundledChromium } = await import('#lib/engines/chrome/unpacked.js');
  const unpacked = await bundledChromium();
  const folder = path.dirname(unpacked.executablePath);
  expect(folder.startsWith(path.join(tmp, 'engine-tools-'))).toBe(true);
  // @sparticuz/chromium's own settings, made when it was loaded, name the temp folder's.
  expect(process.env.FONTCONFIG_PATH).toBe(path.join(tmp, 'fonts'));
  expect(process.env.LD_LIBRARY_PATH?.split(':')[0]).toBe(path.join(tmp, 'al2023', 'lib'));
  expect(unpacked.env).toEqual({
    FONTCONFIG_PATH: path.join(folder, 'fonts'),
    LD_LIBRARY_PATH: [path.join(folder, 'al2023', 'lib'), '/var/lang/lib', '/lib64'].join(':'),
  });
  expect(readFileSync(path.join(folder, 'al2023', 'lib', 'libnss3.so')).subarray(1, 4).toString('latin1')).toBe('ELF');
  expect(readFileSync(path.join(folder, 'fonts', 'fonts.conf'), 'utf8')).toContain(`<dir>${path.join(folder, 'fonts')}</dir>`);
});
