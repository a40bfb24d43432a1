/**
 * The README stays a five-minute read and the documentation stays true to the tree: the README's size and
 * first screen, every relative link and anchor, every section of the former single README reachable from
 * it in one click, every path the prose names, the layer list of docs/architecture.md, and the figures
 * that would drift (alarms, /tmp sizes, the command allowlist's counts) against their sources.
 * test/fixtures/old-readme-headings.txt lists the sections of the single README before the split, made once with
 * `git show e2b6510:README.md | grep '^## ' | sed 's/^## //'`.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LAYERS } from '../../scripts/ci/check-layers.js';
import * as allowlist from '../../lib/engines/command/command-allowlist.js';
import * as magickAllowlist from '../../lib/engines/command/magick-allowlist.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (rel: string): string => readFileSync(path.join(ROOT, rel), 'utf8');

/** Pages that live beside the code they describe rather than under docs/. */
const BESIDE_CODE = ['lib/file-api/operations/README.md'];

function markdownUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(ROOT, rel)).isDirectory()) {
      if (name !== '_pending') markdownUnder(rel, out);
    } else if (name.endsWith('.md')) out.push(rel);
  }
  return out;
}

const docs = markdownUnder('docs');
const pages = ['README.md', ...docs, ...BESIDE_CODE];

/** Text outside fenced code blocks and inline code spans, where links and headings are. */
const prose = (text: string): string => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text).split('\n')) {
    const m = /^#{1,6} (.+)$/.exec(line.replace(/\s+$/, ''));
    if (!m) continue;
    const base = m[1]!.toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const headings = (text: string): string[] =>
  prose(text)
    .split('\n')
    .flatMap((line) => /^#{1,6} (.+)$/.exec(line.trim())?.[1]?.trim() ?? []);

/** Relative links ([text](target)) of a page, with the file and anchor each resolves to. */
function links(page: string): { target: string; file: string; anchor?: string }[] {
  const out: { target: string; file: string; anchor?: string }[] = [];
  for (const m of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [file, anchor] = target.split('#') as [string, string | undefined];
    out.push({ target, file: file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file)), anchor });
  }
  return out;
}

/** Whether a path named in prose exists; `<name>`, `{id}`, `*` and `…` stand for any one segment's part. */
function pathExists(named: string): boolean {
  const segments = named.replace(/\/+$/, '').split('/');
  const walk = (dir: string, rest: string[]): boolean => {
    if (rest.length === 0) return true;
    const [seg, ...tail] = rest as [string, ...string[]];
    if (!/[<>{}*…]/.test(seg)) {
      const next = path.join(dir, seg);
      return existsSync(next) && (tail.length === 0 || statSync(next).isDirectory()) && walk(next, tail);
    }
    const pattern = new RegExp(
      `^${seg
        .split(/<[^>]*>|\{[^}]*\}|\*+|…/)
        .map((s) => s.replace(/[.+?^$()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return false;
    return readdirSync(dir).some((name) => pattern.test(name) && walk(path.join(dir, name), tail));
  };
  return walk(ROOT, segments);
}

/** Every repository path the documentation names under lib/, local/, functions/ or scripts/. */
function namedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?<![\w./@-])(?:#?)((?:lib|local|functions|scripts)\/[\w.<>{}*…/-]*)/g)) {
    const named = m[1]!.replace(/[.,:;]+$/, '');
    if (named.split('/').filter(Boolean).length < 2 && !named.startsWith('local') && !named.startsWith('functions') && !named.startsWith('scripts')) continue;
    found.add(named);
  }
  return [...found];
}

describe('the README', () => {
  const readme = read('README.md');

  it('is at most 12 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12 * 1024);
  });

  it('gives the two commands in its first screen (40 lines)', () => {
    const first = readme.split('\n').slice(0, 40).join('\n');
    expect(first).toContain('npm ci && npm start');
    expect(first).toContain('npm ci && npm test');
  });

  it('reaches every section of the former README in one click', () => {
    const old = read('test/fixtures/old-readme-headings.txt').split('\n').filter(Boolean);
    expect(old.length).toBeGreaterThan(10);
    const linked = new Set(links('README.md').map((l) => l.file));
    for (const heading of old) {
      const holders = pages.filter((p) => headings(read(p)).includes(heading));
      expect(holders, `no page has the heading "${heading}"`).not.toEqual([]);
      expect(
        holders.some((p) => p === 'README.md' || linked.has(p)),
        `"${heading}" is in ${holders.join(', ')}, which the README does not link`,
      ).toBe(true);
    }
  });
});

describe('the documentation', () => {
  it.each(pages)('%s: every relative link names a file, and its anchor a heading there', (page) => {
    for (const link of links(page)) {
      expect(existsSync(path.join(ROOT, link.file)), `${page}: ${link.target} names no file`).toBe(true);
      if (link.anchor && link.file.endsWith('.md')) {
        expect([...anchors(read(link.file))], `${page}: ${link.target} names no heading of ${link.file}`).toContain(link.anchor);
      }
    }
  });

  it.each(pages)('%s: every lib/, local/, functions/ and scripts/ path it names exists', (page) => {
    const missing = namedPaths(read(page)).filter((p) => !pathExists(p));
    expect(missing, `${page} names paths that are not in the tree`).toEqual([]);
  });

  it.each(docs)('%s is short enough for one sitting (20 KB)', (page) => {
    expect(Buffer.byteLength(read(page))).toBeLessThanOrEqual(20 * 1024);
  });

  it('draws the layers of lib/ in the order of LAYERS (scripts/ci/check-layers.ts)', () => {
    const text = read('docs/architecture.md');
    const table = text.slice(text.indexOf('| layer | folder |'));
    const drawn = [...table.matchAll(/^\| \d+ \| `lib\/([\w-]+)\/` \|/gm)].map((m) => m[1]);
    expect(drawn).toEqual([...LAYERS]);
    const picture = [...text.matchAll(/^ {2}│ ([a-z][\w-]*) /gm)].map((m) => m[1]);
    expect(picture, 'the picture draws the layers top down').toEqual([...LAYERS].reverse());
  });
});

describe('figures in the documentation that follow their sources', () => {
  const yml = parse(read('serverless.yml')) as {
    functions: Record<string, { ephemeralStorageSize?: number }>;
    resources: { Resources: Record<string, { Type: string; Properties: { Metrics?: { MetricStat?: unknown }[] } }> };
  };

  it('the alarms and their metrics, as serverless.yml declares them', () => {
    const alarms = Object.values(yml.resources.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    const metrics = alarms.flatMap((a) => (a.Properties.Metrics ?? []).filter((m) => m.MetricStat));
    const said = /the (\d+) alarms \((\d+) metrics/.exec(read('docs/operating/costs-and-limits.md'));
    expect(said, 'docs/operating/costs-and-limits.md: "the N alarms (M metrics"').not.toBeNull();
    expect([Number(said![1]), Number(said![2])]).toEqual([alarms.length, metrics.length]);
  });

  it("the engine functions' /tmp, as serverless.yml declares it", () => {
    const rows = [...read('docs/operating/deploying.md').matchAll(/^\| \w+ \| `(engine\w+)` \|.*\| (\d+) GiB \|$/gm)];
    expect(rows.map((r) => r[1]).sort()).toEqual(Object.keys(yml.functions).filter((f) => /^engine[A-Z]/.test(f)).sort());
    for (const [, fn, gib] of rows) expect(Number(gib) * 1024, fn).toBe(yml.functions[fn!]!.ephemeralStorageSize);
  });

  it("the command allowlist's counts, as lib/engines/command/command-allowlist.ts holds them", () => {
    const said = /What the lists hold \((\d+) ffmpeg options, (\d+) ffprobe options, (\d+) filters, (\d+)\s+formats, (\d+) codecs; ImageMagick and GraphicsMagick, (\d+) options\)/.exec(
      read('docs/security.md'),
    );
    expect(said, 'docs/security.md: "What the lists hold (…)"').not.toBeNull();
    expect(said!.slice(1).map(Number)).toEqual([
      Object.keys(allowlist.FFMPEG_OPTIONS).length,
      Object.keys(allowlist.FFPROBE_OPTIONS).length,
      Object.keys(allowlist.FILTERS).length,
      new Set([...allowlist.OUTPUT_FORMATS, ...allowlist.INPUT_FORMATS]).size,
      allowlist.CODECS.size,
      magickAllowlist.MAGICK_OPTIONS.size,
    ]);
  });
});
