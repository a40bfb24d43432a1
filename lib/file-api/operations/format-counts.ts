/**
 * What discovery's rows add up to (`npm run formats`, the start banner): distinct input and output
 * formats, formats overall and format pairs, in all and per family (format-families.ts;
 * a pair counts in the family of what it produces, discovery's `meta.group`), and what the engines that
 * are missing here, or lack a part, would add. Counted from the rows GET /v2/convert/formats answers,
 * never from a list of its own.
 */
import { formatFamily } from './format-families.js';
import type { EngineRegistry } from '../../engines/core/registry.js';
import type { OperationView } from './discovery.js';

export interface Counts {
  inputs: number;
  outputs: number;
  formats: number;
  pairs: number;
}

export interface FormatCounts extends Counts {
  /** By family, only the families that have formats here. */
  families: Record<string, Counts>;
  /** Pairs per engine. */
  engines: Record<string, number>;
}

type Row = Pick<OperationView, 'input_format' | 'output_format' | 'engine'>;

function tally(rows: readonly Row[], inFamily: (format: string) => boolean): Counts {
  const inputs = new Set<string>();
  const outputs = new Set<string>();
  const pairs = new Set<string>();
  for (const r of rows) {
    if (r.input_format && inFamily(r.input_format)) inputs.add(r.input_format);
    if (r.output_format && inFamily(r.output_format)) outputs.add(r.output_format);
    if (r.input_format && r.output_format && inFamily(r.output_format)) pairs.add(`${r.input_format}>${r.output_format}`);
  }
  return { inputs: inputs.size, outputs: outputs.size, formats: new Set([...inputs, ...outputs]).size, pairs: pairs.size };
}

/** The counts of discovery rows (those of GET /v2/convert/formats, default engines). */
export function countFormats(rows: readonly Row[]): FormatCounts {
  const families: Record<string, Counts> = {};
  const seen = new Set(rows.flatMap((r) => [r.input_format, r.output_format]).filter((f): f is string => Boolean(f)).map(formatFamily));
  for (const family of [...seen].sort()) families[family] = tally(rows, (f) => formatFamily(f) === family);
  const engines: Record<string, number> = {};
  for (const r of rows) if (r.engine && r.input_format && r.output_format) engines[r.engine] = (engines[r.engine] ?? 0) + 1;
  return { ...tally(rows, () => true), families, engines };
}

/** Formats an engine would add here, by family, and why it does not. */
export interface MissingFormats {
  engine: string;
  reason: string;
  families: Record<string, string[]>;
}

/**
 * The formats an operation lacks here that a missing engine, or a missing part of an installed one
 * (LibreOffice without Calc), would add to it: by engine, grouped by family, with the registry's reason.
 */
export function missingFormats(registry: EngineRegistry): MissingFormats[] {
  // By operation: a format convert lacks is missing even where another operation (metadata) reads it.
  const present = new Set(registry.rows().flatMap((r) => [`${r.operation}\0${r.inputFormat}`, `${r.operation}\0${r.outputFormat}`]));
  const out: MissingFormats[] = [];
  for (const { name } of registry.descriptors()) {
    const installation = registry.installation(name);
    const absent = installation.versions.length === 0;
    const byReason = new Map<string, Array<{ operation: string; format: string }>>();
    for (const capability of registry.capabilities(name)) {
      const lacking = capability.feature && !installation.features?.includes(capability.feature) ? capability.feature : undefined;
      if (!absent && !lacking) continue;
      const reason = absent
        ? (installation.missing ?? 'not available')
        : (installation.withheld?.[lacking!] ?? `${name} has no ${lacking} here`);
      const formats = [capability.inputs, capability.outputs].flatMap((list) => (Array.isArray(list) ? list : []));
      byReason.set(reason, [...(byReason.get(reason) ?? []), ...formats.map((format) => ({ operation: capability.operation, format }))]);
    }
    for (const [reason, formats] of byReason) {
      const families: Record<string, string[]> = {};
      for (const { operation, format } of formats) {
        const family = (families[formatFamily(format)] ??= []);
        if (!present.has(`${operation}\0${format}`) && !family.includes(format)) family.push(format);
      }
      for (const [family, list] of Object.entries(families)) if (!list.length) delete families[family];
      if (Object.keys(families).length) out.push({ engine: name, reason, families });
    }
  }
  return out;
}
