/**
 * The engine registry: for each operation an ordered list of engines (built-in order, overridden per
 * operation by `ENGINE_ORDER`), which of them are installed, in which versions, and for which format
 * pairs. It answers three questions the same way everywhere:
 *
 * - at task creation: may this request run here (`check`, via the operation schemas)?
 * - at run time: which engine and version runs this task (`select`)?
 * - for discovery: what can this installation do (`rows`)?
 *
 * A missing tool only removes its engine; unknown or unavailable choices are errors that name the
 * choices there are.
 */
import { ConfigError, type EngineConfig } from '../../kernel/config.js';
import type { EngineDescriptor, Installation, InstalledVersion } from './catalog.js';
import { deployedInstallation } from './families.js';
import { normalizeFormat } from './formats.js';
import { trimEnd } from '../../kernel/text.js';
import { installCommand } from './install-packages.js';

/** What an engine does for one operation. */
export interface Capability {
  operation: string;
  /**
   * Input formats; `null`: the operation runs without input files (capture-website, watermark without
   * input); `'any'`: whatever the input is (archive).
   */
  inputs: readonly string[] | 'any' | null;
  /** Output formats; `'same'`: the input's format; `null`: no output file (metadata). */
  outputs: readonly string[] | 'same' | null;
  /** The operation's arguments this engine honours (keys of the operation's schema), for discovery. */
  options: readonly string[];
  /** An installed part the capability needs (LibreOffice's calc or impress). */
  feature?: string;
  /**
   * The installed variant that runs it, when an engine has several that do different things (ImageMagick:
   * `wasm` converts, `system` runs `command`); absent: any, the default first.
   */
  variant?: string;
  credits?: number;
}

/**
 * What the operations say the engines do (their definitions, lib/file-api/operations): each capability with
 * its engine, and each operation's built-in engine order. The registry knows no operation otherwise.
 */
export interface EngineOffers {
  capabilities: Array<Capability & { engine: string }>;
  order: Record<string, readonly string[]>;
}

/** One thing an installed engine can do: an operation on one input format giving one output format. */
export interface EngineRow {
  operation: string;
  /** `null`: no input file (capture-website) or any input (archive). */
  inputFormat: string | null;
  /** `null`: no output file (metadata). */
  outputFormat: string | null;
  engine: string;
  capability: Capability;
  /** Whether this engine is the first in the operation's order for this format pair. */
  isDefault: boolean;
}

export interface EngineVersionView {
  version: string;
  default: boolean;
  latest: boolean;
  deprecated: boolean;
  experimental: boolean;
}

/** What a task asks for. `inputFormat`: `undefined` while unknown (a job's input not imported yet), `null` without input. */
export interface EngineRequest {
  inputFormat?: string | null;
  outputFormat?: string | null;
  engine?: string;
  engineVersion?: string;
}

export interface EngineChoice {
  engine: string;
  version: string;
  installed: InstalledVersion;
  capability: Capability;
}

export type ChoiceField = 'engine' | 'engine_version' | 'input_format' | 'output_format';

/** A request the engines cannot serve, naming the field and the choices there are. */
export class EngineChoiceError extends Error {
  override readonly name = 'EngineChoiceError';
  constructor(
    readonly field: ChoiceField,
    message: string,
    /** `UNSUPPORTED_FORMAT` (no engine for the format pair) or `ENGINE_UNAVAILABLE`. */
    readonly code: 'UNSUPPORTED_FORMAT' | 'ENGINE_UNAVAILABLE',
  ) {
    super(message);
  }
}

/** Whether an installed version answers a requested one: equal, or a dotted prefix (`10` → `10.00.0`). */
export const versionMatches = (installed: string, requested: string): boolean =>
  installed === requested || installed.startsWith(`${trimEnd(requested, '.')}.`);

/** Numeric comparison of dotted versions (`10.2` > `9.54`). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((p) => Number.parseInt(p, 10));
  const pb = b.split(/[.+-]/).map((p) => Number.parseInt(p, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = Number.isNaN(pa[i] ?? 0) ? 0 : (pa[i] ?? 0);
    const y = Number.isNaN(pb[i] ?? 0) ? 0 : (pb[i] ?? 0);
    if (x !== y) return x - y;
  }
  return 0;
}

const list = (items: Iterable<string>) => [...new Set(items)].join(', ') || 'none';

function acceptsInput(cap: Capability, input: string | null | undefined): boolean {
  if (input === undefined) return true;
  if (cap.inputs === null) return input === null;
  if (cap.inputs === 'any') return input !== null;
  return input !== null && cap.inputs.includes(input);
}

function acceptsOutput(cap: Capability, output: string | null | undefined, input: string | null | undefined): boolean {
  if (output === undefined) return true;
  if (cap.outputs === null) return output === null;
  if (cap.outputs === 'same') return output === null || input === undefined || output === input;
  return output !== null && cap.outputs.includes(output);
}

export class EngineRegistry {
  readonly #descriptors: Map<string, EngineDescriptor>;
  readonly #settings: EngineConfig;
  readonly #installations = new Map<string, Installation>();
  readonly #order: Record<string, string[]>;

  readonly #capabilities: Map<string, Capability[]>;

  constructor(settings: EngineConfig, offers: EngineOffers, descriptors: readonly EngineDescriptor[]) {
    this.#settings = settings;
    this.#descriptors = new Map();
    for (const d of descriptors) {
      if (this.#descriptors.has(d.name)) throw new Error(`engine ${d.name} is declared twice`);
      this.#descriptors.set(d.name, d);
    }
    this.#capabilities = new Map();
    for (const { engine, ...capability } of offers.capabilities) {
      if (!this.#descriptors.has(engine)) throw new Error(`operation ${capability.operation} names the engine ${engine}, which is not in the catalog`);
      this.#capabilities.set(engine, [...(this.#capabilities.get(engine) ?? []), capability]);
    }
    const operations = new Set(offers.capabilities.map((c) => c.operation));
    this.#order = {};
    for (const operation of operations) {
      const serving = [...new Set(offers.capabilities.filter((c) => c.operation === operation).map((c) => c.engine))];
      const configured = settings.ENGINE_ORDER[operation] ?? [];
      for (const name of configured) {
        if (!serving.includes(name)) {
          throw new ConfigError(`ENGINE_ORDER: ${operation} has no engine ${name}; its engines are ${list(serving)}`);
        }
      }
      const builtIn = (offers.order[operation] ?? []).filter((n) => serving.includes(n));
      this.#order[operation] = [...new Set([...configured, ...builtIn, ...serving])];
    }
    for (const operation of Object.keys(settings.ENGINE_ORDER)) {
      if (!operations.has(operation)) throw new ConfigError(`ENGINE_ORDER names ${operation}, which has no engines; operations with engines: ${list(operations)}`);
    }
    for (const name of settings.ENGINES_DISABLED) {
      if (!this.#descriptors.has(name)) throw new ConfigError(`ENGINES_DISABLED names ${name}; the engines are ${list(this.#descriptors.keys())}`);
    }
  }

  /** What an engine does, by operation (empty for an engine no operation uses). */
  capabilities(engine: string): readonly Capability[] {
    return this.#capabilities.get(engine) ?? [];
  }

  /** Every engine, installed or not, with what it can do. */
  descriptors(): EngineDescriptor[] {
    return [...this.#descriptors.values()];
  }

  /**
   * The engine's installation here (probed once); in the deployed stack, the one its engine function
   * has (families.ts), unless this process is that function.
   */
  installation(name: string): Installation {
    let found = this.#installations.get(name);
    if (!found) {
      const descriptor = this.#descriptors.get(name);
      const deployed = descriptor && deployedInstallation(name, this.#settings);
      if (!descriptor) found = { versions: [], missing: `there is no engine ${name}` };
      else if (this.#settings.ENGINES_DISABLED.includes(name)) found = { versions: [], missing: `disabled by ENGINES_DISABLED` };
      else if (deployed) found = deployed;
      else {
        try {
          found = descriptor.detect(this.#settings);
        } catch (err) {
          found = { versions: [], missing: `probing failed: ${(err as Error).message}` };
        }
      }
      this.#installations.set(name, found);
    }
    return found;
  }

  isAvailable(name: string): boolean {
    return this.installation(name).versions.length > 0;
  }

  /** Installed versions with discovery's flags; the first is the default. */
  versions(name: string): EngineVersionView[] {
    const installed = this.installation(name).versions;
    const latest = installed.reduce<string | undefined>((max, v) => (max === undefined || compareVersions(v.version, max) > 0 ? v.version : max), undefined);
    return installed.map((v, i) => ({ version: v.version, default: i === 0, latest: v.version === latest, deprecated: false, experimental: false }));
  }

  /** The operation's engines in order, installed or not. */
  order(operation: string): string[] {
    return this.#order[operation] ?? [];
  }

  /** The capabilities for an operation that this installation has, in engine order. */
  available(operation: string): Array<{ engine: string; capability: Capability }> {
    const out: Array<{ engine: string; capability: Capability }> = [];
    for (const engine of this.order(operation)) {
      if (!this.isAvailable(engine)) continue;
      const features = this.installation(engine).features;
      for (const capability of this.capabilities(engine)) {
        if (capability.operation !== operation) continue;
        if (capability.feature && !features?.includes(capability.feature)) continue;
        if (capability.variant && !this.installation(engine).versions.some((v) => v.variant === capability.variant)) continue;
        out.push({ engine, capability });
      }
    }
    return out;
  }

  /** Every (operation, input, output, engine) this installation can run, defaults marked. */
  rows(): EngineRow[] {
    const rows: EngineRow[] = [];
    for (const operation of Object.keys(this.#order)) {
      const seen = new Set<string>();
      for (const { engine, capability } of this.available(operation)) {
        const inputs = capability.inputs === null || capability.inputs === 'any' ? [null] : capability.inputs;
        for (const input of inputs) {
          const outputs = capability.outputs === 'same' ? [input] : capability.outputs === null ? [null] : capability.outputs;
          for (const output of outputs) {
            const pair = `${input}>${output}`;
            const key = `${pair}>${engine}`;
            if (seen.has(key)) continue;
            const isDefault = ![...seen].some((k) => k.startsWith(`${pair}>`));
            seen.add(key);
            rows.push({ operation, inputFormat: input, outputFormat: output, engine, capability, isDefault });
          }
        }
      }
    }
    return rows;
  }

  /**
   * Problems with a request, by field, for task creation (where a job's input format may not be known
   * yet). Empty when the request can run here.
   */
  check(operation: string, request: EngineRequest): Array<{ field: ChoiceField; message: string }> {
    try {
      this.#choose(operation, request, false);
      return [];
    } catch (err) {
      if (err instanceof EngineChoiceError) return [{ field: err.field, message: err.message }];
      throw err;
    }
  }

  /** The engine and version that run a task whose formats are known. Throws `EngineChoiceError`. */
  select(operation: string, request: EngineRequest): EngineChoice {
    return this.#choose(operation, request, true)!;
  }

  /** The installed versions that run a capability: those of its variant, when it names one. */
  #versionsFor(c: { engine: string; capability: Capability }): InstalledVersion[] {
    return this.installation(c.engine).versions.filter((v) => !c.capability.variant || v.variant === c.capability.variant);
  }

  /**
   * Why the first engine that would take a refused request is not offered here (missing, or lacking
   * the part), and the package that installs it: the 422 says what to install, as the banner does.
   */
  #whyNot(operation: string, takes: (c: Capability) => boolean): string {
    for (const engine of this.order(operation)) {
      const installation = this.installation(engine);
      const capability = this.capabilities(engine).find((c) => c.operation === operation && takes(c));
      if (!capability) continue;
      const lacking = capability.feature && !installation.features?.includes(capability.feature) ? capability.feature : undefined;
      if (this.isAvailable(engine) && !lacking) continue;
      const why = !this.isAvailable(engine) ? (installation.missing ?? 'not available') : (installation.withheld?.[lacking!] ?? `${engine} has no ${lacking} here`);
      // The deployed stack's reason names the function or image to deploy; apt-get is for this machine.
      const install = this.#settings.ENGINE_FUNCTIONS.length === 0 ? installCommand(engine) : undefined;
      return ` ${engine} would: ${why}${install ? ` (${install})` : ''}.`;
    }
    return '';
  }

  #choose(operation: string, request: EngineRequest, decide: boolean): EngineChoice | undefined {
    const input = typeof request.inputFormat === 'string' ? normalizeFormat(request.inputFormat) : request.inputFormat;
    const output = typeof request.outputFormat === 'string' ? normalizeFormat(request.outputFormat) : request.outputFormat;
    const all = this.available(operation);
    if (all.length === 0) {
      // An engine that could run it holds that part back here: say why, and how to fix it.
      for (const engine of this.order(operation)) {
        const installation = this.installation(engine);
        const held = this.capabilities(engine).find((c) => c.operation === operation && c.feature && installation.withheld?.[c.feature]);
        if (held) throw new EngineChoiceError('engine', `${operation} is not offered on this installation: ${installation.withheld![held.feature!]}.`, 'ENGINE_UNAVAILABLE');
      }
    }
    const describePair = () =>
      [input ? `from ${input}` : input === null ? 'without input' : '', output ? `to ${output}` : ''].filter(Boolean).join(' ');

    const byInput = all.filter((c) => acceptsInput(c.capability, input));
    if (byInput.length === 0) {
      const inputs = all.flatMap((c) => (Array.isArray(c.capability.inputs) ? c.capability.inputs : []));
      const message =
        input === null
          ? `${operation} needs an input file here.`
          : `${operation} cannot read ${input} files on this installation; input formats: ${list(inputs)}.${this.#whyNot(operation, (c) => acceptsInput(c, input))}`;
      throw new EngineChoiceError('input_format', message, 'UNSUPPORTED_FORMAT');
    }
    const byPair = byInput.filter((c) => acceptsOutput(c.capability, output, input));
    if (byPair.length === 0) {
      const outputs = byInput.flatMap((c) =>
        c.capability.outputs === 'same' ? (input ? [input] : []) : Array.isArray(c.capability.outputs) ? c.capability.outputs : [],
      );
      throw new EngineChoiceError(
        'output_format',
        `${operation} cannot produce ${output ?? 'that'} ${input ? `from ${input} ` : ''}on this installation; output formats: ${list(outputs)}.` +
          this.#whyNot(operation, (c) => acceptsInput(c, input) && acceptsOutput(c, output, input)),
        'UNSUPPORTED_FORMAT',
      );
    }

    let candidates = byPair;
    if (request.engine !== undefined) {
      const name = request.engine;
      const engines = list(byPair.map((c) => c.engine));
      const serves = this.order(operation).includes(name);
      if (!serves) throw new EngineChoiceError('engine', `There is no engine ${name} for ${operation}; choose one of: ${engines}.`, 'ENGINE_UNAVAILABLE');
      if (!this.isAvailable(name)) {
        throw new EngineChoiceError('engine', `The engine ${name} is not available on this installation; choose one of: ${engines}.`, 'ENGINE_UNAVAILABLE');
      }
      candidates = byPair.filter((c) => c.engine === name);
      if (candidates.length === 0) {
        throw new EngineChoiceError('engine', `The engine ${name} cannot run ${operation} ${describePair()}; choose one of: ${engines}.`, 'ENGINE_UNAVAILABLE');
      }
    }

    if (request.engineVersion !== undefined) {
      const wanted = String(request.engineVersion);
      const withVersion = candidates.filter((c) => this.#versionsFor(c).some((v) => versionMatches(v.version, wanted)));
      if (withVersion.length === 0) {
        const engines = [...new Set(candidates.map((c) => c.engine))];
        const versionsOf = (e: string) => [...new Set(candidates.filter((c) => c.engine === e).flatMap((c) => this.#versionsFor(c)))];
        const choices = engines.flatMap((e) => versionsOf(e).map((v) => (engines.length > 1 ? `${e} ${v.version}` : v.version)));
        throw new EngineChoiceError(
          'engine_version',
          `There is no version ${wanted} of ${engines.length === 1 ? `the engine ${engines[0]}` : `the engines for ${operation}`}; choose one of: ${list(choices)}.`,
          'ENGINE_UNAVAILABLE',
        );
      }
      candidates = withVersion;
    }

    if (!decide) return undefined;
    const chosen = candidates[0]!;
    const versions = this.#versionsFor(chosen);
    const installed =
      request.engineVersion !== undefined ? versions.find((v) => versionMatches(v.version, String(request.engineVersion)))! : versions[0]!;
    return { engine: chosen.engine, version: installed.version, installed, capability: chosen.capability };
  }
}
