/**
 * What this machine converts, as `npm run formats` prints it and `npm start`'s banner sums it up: the
 * counts of GET /v2/convert/formats (lib/file-api/operations/format-counts.ts) and, by family, the
 * formats that missing engines would add, with how to add them (engine-setup.ts's advice).
 */
import type { EngineRegistry } from '../lib/engines/core/registry.js';
import { FORMAT_FAMILIES } from '../lib/file-api/operations/format-families.js';
import { discover } from '../lib/file-api/operations/discovery.js';
import { countFormats, missingFormats, type FormatCounts, type MissingFormats } from '../lib/file-api/operations/format-counts.js';
import { installCommand } from '../lib/engines/core/install-packages.js';
import { engineAdvice, engineStatus } from './engine-setup.js';

export interface MissingFamily {
  family: string;
  formats: string[];
  /** Each engine (or missing part) that would add them: why it is missing, how to add it. */
  causes: Array<{ engine: string; reason: string; advice: string; engineMissing: boolean }>;
}

/** What installing one Debian package (install-packages.ts) adds here: every format it alone would add. */
export interface PackageGain {
  install: string;
  engines: string[];
  /** By family, in the families' order. */
  families: Record<string, string[]>;
}

export interface FormatReport {
  convert: FormatCounts;
  engines: Array<{ engine: string; found?: string; missing?: string; advice?: string }>;
  /** The families missing formats of engines that no package of install-packages.ts adds. */
  missing: MissingFamily[];
  packages: PackageGain[];
}

const familyOrder = (family: string) => {
  const at = (FORMAT_FAMILIES as readonly string[]).indexOf(family);
  return at < 0 ? FORMAT_FAMILIES.length : at;
};

/** The report for this registry (the one the functions build from the same settings). */
export function formatReport(registry: EngineRegistry): FormatReport {
  const convert = countFormats(discover({}, { restrictTo: 'convert', registry }));
  const byFamily = new Map<string, MissingFamily>();
  const gaps = missingFormats(registry);
  for (const gap of gaps.filter((g) => !installCommand(g.engine))) {
    for (const [family, formats] of Object.entries(gap.families)) {
      const entry = byFamily.get(family) ?? { family, formats: [], causes: [] };
      entry.formats = [...new Set([...entry.formats, ...formats])];
      entry.causes.push({ engine: gap.engine, reason: gap.reason, advice: engineAdvice(gap.engine), engineMissing: !registry.isAvailable(gap.engine) });
      byFamily.set(family, entry);
    }
  }
  const missing = [...byFamily.values()].sort((a, b) => familyOrder(a.family) - familyOrder(b.family));
  return { convert, engines: engineStatus(registry), missing, packages: packageGains(gaps) };
}

/** The gaps of the engines a package installs, by package: what a machine gains from each install line. */
function packageGains(gaps: MissingFormats[]): PackageGain[] {
  const byInstall = new Map<string, PackageGain>();
  for (const gap of gaps) {
    const install = installCommand(gap.engine);
    if (!install) continue;
    const gain = byInstall.get(install) ?? { install, engines: [], families: {} };
    if (!gain.engines.includes(gap.engine)) gain.engines.push(gap.engine);
    for (const [family, formats] of Object.entries(gap.families)) gain.families[family] = [...new Set([...(gain.families[family] ?? []), ...formats])];
    byInstall.set(install, gain);
  }
  const ordered = (families: Record<string, string[]>) => Object.fromEntries(Object.entries(families).sort(([a], [b]) => familyOrder(a) - familyOrder(b)));
  return [...byInstall.values()].map((gain) => ({ ...gain, families: ordered(gain.families) }));
}

/** `document docx, odt; spreadsheet xlsx, ods`: a package's formats by family, all of them. */
const byFamilyText = (families: Record<string, string[]>) => Object.entries(families).map(([family, formats]) => `${family} ${formats.join(', ')}`).join('; ');
const formatTotal = (families: Record<string, string[]>) => new Set(Object.values(families).flat()).size;

const sample = (formats: string[], n = 6) => `${formats.slice(0, n).join(', ')}${formats.length > n ? `, … ${formats.length} in all` : ''}`;

/**
 * The banner's lines: the counts, then one line per family that misses formats here. An engine that
 * is missing altogether has its own line above (engine-setup.ts, with how to add it); a missing part
 * (LibreOffice without Calc) is said here, with how to add it, once.
 */
export function missingFamilyLines(report: FormatReport, indent = '  formats      '): string[] {
  const pad = ' '.repeat(indent.length);
  const c = report.convert;
  const lines = [`${indent}${c.formats} (${c.inputs} in, ${c.outputs} out), ${c.pairs} convert pairs; per family: npm run formats`];
  const told = new Set<string>();
  for (const m of report.missing) {
    const causes = m.causes.map((cause) => {
      if (cause.engineMissing) return `${cause.engine} (missing, see above)`;
      const advised = told.has(cause.engine);
      told.add(cause.engine);
      return `${cause.reason}; to add it: ${advised ? 'as above' : cause.advice}`;
    });
    lines.push(`${pad}missing ${m.family} (${sample(m.formats)}): ${causes.join('; ')}`);
  }
  for (const p of report.packages) lines.push(`${pad}${p.install} adds ${formatTotal(p.families)} formats: ${byFamilyText(p.families)}`);
  return lines;
}

const counted = (name: string, width: number, k: { inputs: number; outputs: number; formats: number; pairs: number }) =>
  `  ${name.padEnd(width)}  ${String(k.inputs).padStart(6)}  ${String(k.outputs).padStart(7)}  ${String(k.formats).padStart(7)}  ${String(k.pairs).padStart(6)}`;

/** The media, image, archive and font families together (CloudConvert's non-document families). */
const MEDIA_FAMILIES = ['video', 'audio', 'image', 'archive', 'font'];
function mediaLine(families: Record<string, { formats: number; pairs: number }>): string {
  const picked = MEDIA_FAMILIES.map((f) => families[f] ?? { formats: 0, pairs: 0 });
  const sum = (k: 'formats' | 'pairs') => picked.reduce((n, f) => n + f[k], 0).toLocaleString('en-US');
  return `  (${MEDIA_FAMILIES.join(', ')}: ${sum('formats')} formats, ${sum('pairs')} pairs)`;
}

/** `npm run formats`'s table: the counts per family, the engines, then what is missing and how to add it. */
export function reportLines(report: FormatReport): string[] {
  const c = report.convert;
  const families = Object.entries(c.families).sort(([a], [b]) => familyOrder(a) - familyOrder(b));
  const width = Math.max(6, ...families.map(([f]) => f.length));
  const lines = [
    'GET /v2/convert/formats on this machine (default engines; a pair counts in the family of what it produces):',
    `  ${'family'.padEnd(width)}  inputs  outputs  formats   pairs`,
    ...families.map(([family, k]) => counted(family, width, k)),
    counted('all', width, c),
    mediaLine(c.families),
    '',
    `engines: ${report.engines.filter((e) => e.found).map((e) => e.found).join(', ') || 'none'}`,
    `pairs per engine: ${Object.entries(c.engines).map(([e, n]) => `${e} ${n}`).join(', ') || 'none'}`,
  ];
  const missingEngines = report.engines.filter((e) => e.missing);
  if (missingEngines.length) lines.push(`missing engines: ${missingEngines.map((e) => `${e.engine} (${e.missing})`).join('; ')}`);
  if (report.missing.length) lines.push('', 'formats missing here, by family:');
  const advice = new Map<string, string>();
  for (const m of report.missing) {
    const why = m.causes.map((cause) => (cause.engineMissing ? cause.engine : `${cause.engine}: ${cause.reason}`));
    lines.push(`  ${m.family}: ${m.formats.join(', ')} (${why.join('; ')})`);
    for (const cause of m.causes) advice.set(cause.engine, cause.advice);
  }
  if (report.packages.length) lines.push('', 'what installing adds here:', ...report.packages.map((p) => `  ${p.install}: ${byFamilyText(p.families)}`));
  for (const e of missingEngines) advice.set(e.engine, e.advice ?? '');
  if (advice.size) lines.push('', 'to add them:', ...[...advice].map(([engine, how]) => `  ${engine}: ${how}`));
  return lines;
}
