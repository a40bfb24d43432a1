import { describe, expect, it, TestRunner } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import type { EngineDescriptor } from '#lib/engines/core/catalog.js';
import { EngineRegistry } from '#lib/engines/core/registry.js';

/** Every engine below converts docx to pdf: the banner is about engines, not what they do. */
const offers = (names: string[]) => ({ capabilities: names.map((engine) => ({ engine, operation: 'convert', inputs: ['docx'], outputs: ['pdf'], options: [] })), order: {} });
import { confinement } from '#lib/engines/core/confine.js';
import { confinementBannerLine, engineAdvice, engineBannerLines } from '../../local/engine-setup.js';
import { engine, OptionalBuild, requires, type SkipRecord } from '../support/requires.js';
import { skipSummary } from '../support/tool-skips.js';

const descriptor = (name: string, detect: EngineDescriptor['detect']): EngineDescriptor => ({
  name,
  description: name,
  detect,
});

describe('npm start’s engine lines', () => {
  it('list the engines found with their versions, then each missing one with why and how to add it', () => {
    const registry = new EngineRegistry(parseEngineConfig({}), offers(['sharp', 'ffmpeg', 'libreoffice']), [
      descriptor('sharp', () => ({ versions: [{ version: '0.35.5' }] })),
      descriptor('ffmpeg', () => ({ versions: [{ version: '7.1', variant: 'system' }, { version: '6.0', variant: 'bundled' }] })),
      descriptor('libreoffice', () => ({ versions: [], missing: 'soffice was not found; install it or set SOFFICE_PATH' })),
    ]);
    expect(engineBannerLines(registry, '  engines  ')).toEqual([
      '  engines  sharp 0.35.5, ffmpeg 7.1 (system), 6.0 (bundled)',
      `           missing libreoffice: soffice was not found; install it or set SOFFICE_PATH; to add it: ${engineAdvice('libreoffice')}`,
    ]);
    expect(engineAdvice('libreoffice')).toContain('apt-get install libreoffice-nogui');
  });
});

describe('npm start’s confinement line', () => {
  it('says what engines can reach at each level, and how to confine them fully', () => {
    expect(confinementBannerLine(confinement(parseEngineConfig({ ENGINE_CONFINEMENT: 'none' })), '  c  ')).toBe(
      '  c  none: engines run with your network and files; for full confinement: apt-get install bubblewrap',
    );
    expect(confinementBannerLine(confinement(parseEngineConfig({ ENGINE_CONFINEMENT: 'platform' })), '')).toMatch(/^platform: the deployment isolates/);
    // A machine with neither bubblewrap nor unshare, as a fresh one may be: auto falls to none, and says so.
    const bare = confinement(parseEngineConfig({ BWRAP_PATH: '/nonexistent/bwrap', UNSHARE_PATH: '/nonexistent/unshare' }));
    expect(bare.level).toBe('none');
    expect(confinementBannerLine(bare, '')).toBe('none: engines run with your network and files; for full confinement: apt-get install bubblewrap');
    // Asked for and impossible: no native engine runs, and the line says why.
    const impossible = confinement(parseEngineConfig({ ENGINE_CONFINEMENT: 'bwrap', BWRAP_PATH: '/nonexistent/bwrap' }));
    expect(confinementBannerLine(impossible, '')).toMatch(/^unavailable: ENGINE_CONFINEMENT=bwrap, but .*\(no native engine runs\)$/);
  });
});

describe('tests that need what is missing', () => {
  it('name the missing engine and how to add it, and are met when it is there', () => {
    const missing = requires(engine('no-such-engine'));
    expect(missing.met).toBe(false);
    expect(missing.reason).toMatch(/^engine no-such-engine unavailable \(there is no engine no-such-engine\); to add it: /);
    expect(requires(engine('sharp')).met).toBe(true);
    expect(requires(engine('sharp')).reason).toBeUndefined();
  });

  it('end the run with one line per reason: how many tests, in which files', () => {
    const reason = 'LibreOffice (soffice) not found on PATH; install: apt-get install libreoffice-writer-nogui';
    const rec = (file: string, failed = false) => ({ file, test: 't', needs: ['soffice'], reason, failed });
    expect(skipSummary([])).toEqual([]);
    expect(skipSummary([rec('a.test.ts'), rec('a.test.ts'), rec('b.test.ts')])).toEqual([
      '3 tests skipped for lack of a tool (REQUIRE_ALL_TOOLS=1 makes them fail):',
      `  3 tests in a.test.ts, b.test.ts: ${reason}`,
    ]);
    expect(skipSummary([rec('a.test.ts', true)])).toEqual(['1 test failed for lack of a tool (REQUIRE_ALL_TOOLS=1):', `  1 test in a.test.ts: ${reason}`]);
  });

  it('name the suites of a missing optional build apart from the skips', () => {
    const gs = 'Ghostscript (gs) not found on PATH; install: apt-get install ghostscript';
    const left = (file: string, test: string) => ({ file, test, needs: [], reason: gs, failed: false, leftOut: true });
    expect(skipSummary([left('a.test.ts', 'on system gs'), left('b.test.ts', 'x > on system gs')])).toEqual([
      'Not collected: tests of a system build this machine lacks, beside the npm-shipped build they tested (REQUIRE_ALL_TOOLS=1 runs them):',
      `  "on system gs" (a.test.ts), "x > on system gs" (b.test.ts): ${gs}`,
    ]);
  });
});

describe('an optional build', () => {
  // What collection registers, measured while this suite is collected.
  const suite = TestRunner.getCurrentSuite();
  const recorded: SkipRecord[] = [];
  const count = () => suite.tasks.length;
  const start = count();
  new OptionalBuild([engine('no-such-engine')], false, (r) => recorded.push(r)).describe('missing build', () => {
    it('is never collected', () => {
      throw new Error('collected although its build is missing');
    });
  });
  const missingAdded = count() - start;
  new OptionalBuild([engine('sharp')], false, (r) => recorded.push(r)).it('present build: collected and run', () => {
    expect(requires(engine('sharp')).met).toBe(true);
  });
  const presentAdded = count() - start - missingAdded;
  // Under REQUIRE_ALL_TOOLS=1 a missing build is collected; counted, then taken back out (its tests would fail).
  new OptionalBuild([engine('no-such-engine')], true, (r) => recorded.push(r)).describe('required build', () => undefined);
  const requiredAdded = count() - start - missingAdded - presentAdded;
  suite.tasks.splice(start + missingAdded + presentAdded, requiredAdded);

  it('that is missing is left out of collection and recorded; one that is present, or required by REQUIRE_ALL_TOOLS=1, is collected', () => {
    expect(missingAdded).toBe(0);
    expect(presentAdded).toBe(1);
    expect(requiredAdded).toBe(1);
    expect(recorded).toEqual([
      expect.objectContaining({ file: 'test/unit/engine-setup.test.ts', test: 'an optional build > missing build', leftOut: true, reason: expect.stringMatching(/^engine no-such-engine unavailable/) }),
    ]);
  });
});
