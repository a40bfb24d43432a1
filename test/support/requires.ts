/**
 * Tests that need something this machine may lack (a system tool, or an engine the registry finds
 * unavailable) declare it here, and one mechanism decides what happens when it is missing:
 *
 * - the test is skipped with a one-line reason naming what is missing and how to install it
 *   (shown beside the test by the verbose reporter);
 * - every such skip is recorded, and `npm test` ends with a summary of what was skipped and why
 *   (test/support/tool-skips.ts, a global setup, so it prints whichever reporter runs);
 * - with `REQUIRE_ALL_TOOLS=1` (CI: .ci/run) the same test fails with the same reason instead.
 *
 * Availability is looked up when a test runs, never while files are collected, with one exception:
 * a second build of an engine whose npm-shipped build the same file tests anyway (`optionalBuild`).
 *
 *
 *   const office = requires(engine('libreoffice'));
 *   office.it('converts a .docx', async () => { … });
 *   office.describe('office documents', () => { office.beforeAll(async () => { … }); it(…); });
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, beforeEach, describe, inject, it, TestRunner, type TestContext } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { confinement } from '#lib/engines/core/confine.js';
import { findExecutable } from '#lib/engines/core/probe.js';
import type { EngineRegistry } from '#lib/engines/core/registry.js';
import { engineAdvice, SYSTEM_TOOLS, type SystemToolName } from '../../local/engine-setup.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';

/** `REQUIRE_ALL_TOOLS=1`: a missing tool fails its tests instead of skipping them. Read once. */
export const REQUIRE_ALL_TOOLS = process.env.REQUIRE_ALL_TOOLS === '1';

/** Something a test needs: `undefined` when present, else why it is missing and how to add it (one line). */
export interface Requirement {
  /** Short name for summaries (`soffice`, `engine libreoffice`). */
  name: string;
  missing(): string | undefined;
}

/** A system tool found on PATH (as the engines look for it). */
export function tool(name: SystemToolName): Requirement {
  const { label, install } = SYSTEM_TOOLS[name];
  return {
    name,
    missing: () => (findExecutable(name) ? undefined : `${label} (${name}) not found on PATH; install: ${install}`),
  };
}

/**
 * The `command` operation offered here: only under full confinement (lib/engines/core/confine.ts, bubblewrap
 * that works on this machine), as `npm start` would decide.
 */
export function commandOffered(): Requirement {
  return {
    name: 'command (full confinement)',
    missing() {
      const refused = confinement(parseEngineConfig(process.env)).argumentsRefused;
      return refused ? `the command operation is not offered here: ${refused}` : undefined;
    },
  };
}

let registry: EngineRegistry | undefined;

/** An engine the registry finds available with this process's settings (as `npm start` would). */
export function engine(name: string): Requirement {
  return {
    name: `engine ${name}`,
    missing() {
      registry ??= newEngineRegistry(parseEngineConfig(process.env));
      const installation = registry.installation(name);
      if (installation.versions.length > 0) return undefined;
      return `engine ${name} unavailable (${installation.missing ?? 'not installed'}); to add it: ${engineAdvice(name)}`;
    },
  };
}

/**
 * A skip or, under REQUIRE_ALL_TOOLS, a failure, as recorded for the run's summary; or (`leftOut`)
 * a suite of an optional build that was not collected, `test` then naming the suite.
 */
export interface SkipRecord {
  file: string;
  test: string;
  needs: string[];
  reason: string;
  failed: boolean;
  leftOut?: boolean;
}

/** Where this run's records go: a folder the global setup made, one file per worker process. */
function record(entry: SkipRecord): void {
  let dir: string | undefined;
  try {
    dir = inject('toolSkipsDir');
  } catch {
    dir = undefined;
  }
  if (dir) appendFileSync(path.join(dir, `${process.pid}.jsonl`), JSON.stringify(entry) + '\n');
}

export class Requirements {
  readonly #needs: readonly Requirement[];
  #missing: Array<{ name: string; reason: string }> | undefined;

  constructor(needs: readonly Requirement[]) {
    this.#needs = needs;
  }

  /** What is missing, each with its reason (looked up once). */
  #lookup(): Array<{ name: string; reason: string }> {
    this.#missing ??= this.#needs.flatMap((n) => {
      const reason = n.missing();
      return reason ? [{ name: n.name, reason }] : [];
    });
    return this.#missing;
  }

  /** Whether everything needed is here. */
  get met(): boolean {
    return this.#lookup().length === 0;
  }

  /** The one-line reason, or `undefined` when everything is here. */
  get reason(): string | undefined {
    const missing = this.#lookup();
    return missing.length ? missing.map((m) => m.reason).join(' | ') : undefined;
  }

  /**
   * At the start of a test (or in a beforeEach): skips it when something is missing, naming it, or
   * fails it under REQUIRE_ALL_TOOLS=1. Returns normally when everything is here.
   */
  check(ctx: TestContext): void {
    const reason = this.reason;
    if (!reason) return;
    const entry = { file: ctx.task.file.name, test: ctx.task.name, needs: this.#lookup().map((m) => m.name), reason, failed: REQUIRE_ALL_TOOLS };
    record(entry);
    if (REQUIRE_ALL_TOOLS) throw new Error(`${reason} (REQUIRE_ALL_TOOLS=1 makes this a failure rather than a skip)`);
    ctx.skip(reason);
  }

  /** A test that runs only when everything is here. */
  it(name: string, fn: (ctx: TestContext) => unknown, timeout?: number): void {
    it(
      name,
      async (ctx) => {
        this.check(ctx);
        await fn(ctx);
      },
      timeout,
    );
  }

  /** A suite whose every test runs only when everything is here (its beforeAll hooks: use `this.beforeAll`). */
  describe(name: string, fn: () => void): void {
    describe(name, () => {
      beforeEach((ctx) => this.check(ctx));
      fn();
    });
  }

  /** A beforeAll that does nothing when something is missing (the tests then skip or fail on their own). */
  beforeAll(fn: () => unknown, timeout?: number): void {
    beforeAll(async () => {
      if (this.met) await fn();
    }, timeout);
  }
}

/**
 * Tests of a second build of an engine (the system qpdf, Ghostscript or Tesseract) in a file that
 * tests the npm-shipped build regardless. A machine without the system build still has every
 * operation, only a slower path for it, so its tests are not a gap to report as skips: when the
 * build is missing they are left out of collection, and the run's summary names each suite left out
 * and why. Under REQUIRE_ALL_TOOLS=1 they are collected and fail like any missing tool.
 *
 * Unlike `requires`, this looks the build up while the file is collected (a PATH lookup, or one
 * quick run of the tool).
 */
export class OptionalBuild extends Requirements {
  readonly #requireAll: boolean;
  readonly #record: (entry: SkipRecord) => void;

  /** `requireAll` and `recordTo` are for testing this class; the defaults are the run's. */
  constructor(needs: readonly Requirement[], requireAll = REQUIRE_ALL_TOOLS, recordTo = record) {
    super(needs);
    this.#requireAll = requireAll;
    this.#record = recordTo;
  }

  /** Whether its tests are collected: the build is here, or CI requires it. */
  get #collected(): boolean {
    return this.#requireAll || this.met;
  }

  #leaveOut(name: string): void {
    const suite = TestRunner.getCurrentSuite();
    const file = suite.file?.name ?? 'unknown file';
    const within = suite.name ? `${suite.name} > ` : '';
    this.#record({ file, test: within + name, needs: [], reason: this.reason ?? '', failed: false, leftOut: true });
  }

  override it(name: string, fn: (ctx: TestContext) => unknown, timeout?: number): void {
    if (this.#collected) super.it(name, fn, timeout);
    else this.#leaveOut(name);
  }

  override describe(name: string, fn: () => void): void {
    if (this.#collected) super.describe(name, fn);
    else this.#leaveOut(name);
  }
}

/** Tests of an optional second build of an engine; see `OptionalBuild`. */
export function optionalBuild(...needs: Requirement[]): Requirements {
  return new OptionalBuild(needs);
}

/** What the tests that follow need; see the top of this file. */
export function requires(...needs: Requirement[]): Requirements {
  return new Requirements(needs);
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder where tests record their skips for lack of a tool (test/support/tool-skips.ts). */
    toolSkipsDir: string;
  }
}
