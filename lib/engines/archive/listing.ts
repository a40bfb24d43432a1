/**
 * An archive's listing (`7zz l -slt`: one `Key = Value` block per entry) and the checks made on it
 * before anything is extracted: entry names that leave their folder (`../x`, `/etc/x`, `C:\x`: the
 * zip-slip) and links that point out of the archive refuse the archive with UNSAFE_ARCHIVE; links
 * inside it are dropped (never extracted, never followed: the extraction writes regular files only);
 * the totals go to the limits (core/limits.ts).
 */
import path from 'node:path';
import { EngineFailure } from '../core/errors.js';
import type { ArchiveTotals } from '../core/limits.js';

export interface ArchiveEntry {
  path: string;
  folder: boolean;
  /** Declared extracted size; undefined when the format does not say (a bzip2 stream). */
  size?: number;
  /** The link's target, for symbolic and hard links. */
  link?: string;
  encrypted: boolean;
}

/** The fields an entry needs (a listing has a dozen more per entry, not kept). */
const KEPT = new Set(['Path', 'Folder', 'Size', 'Mode', 'Attributes', 'Encrypted', 'Symbolic Link', 'Hard Link', 'Copy Link', 'Link']);

function entryOf(fields: Map<string, string>): ArchiveEntry | undefined {
  const name = fields.get('Path');
  if (name === undefined) return undefined;
  const mode = `${fields.get('Mode') ?? ''} ${fields.get('Attributes') ?? ''}`;
  const link = ['Symbolic Link', 'Hard Link', 'Copy Link', 'Link'].map((k) => fields.get(k)).find((v) => v) ?? (/(?:^|\s)l[rwx-]{9}/.test(mode) ? '' : undefined);
  const size = fields.get('Size');
  return {
    path: name,
    folder: fields.get('Folder') === '+' || /(?:^|\s)d[rwx-]{9}/.test(mode) || /^D/.test(fields.get('Attributes') ?? ''),
    size: size ? Number(size) : undefined,
    link,
    encrypted: fields.get('Encrypted') === '+',
  };
}

/**
 * Reads `7zz l -slt` output line by line, as 7-Zip writes it: the blocks after its `----------` line
 * are the entries. Kept one line at a time, so that a listing of millions of entries is stopped once
 * `entries` is past the limit, without holding its text.
 */
export class ListingReader {
  readonly entries: ArchiveEntry[] = [];
  private started = false;
  private fields = new Map<string, string>();

  line(text: string): void {
    if (!this.started) {
      this.started = text === '----------';
      return;
    }
    if (text.trim() === '') return this.end();
    const eq = text.indexOf(' = ');
    const key = eq > 0 ? text.slice(0, eq).trim() : text.endsWith(' =') ? text.slice(0, -2).trim() : undefined;
    if (key === undefined || !KEPT.has(key)) return;
    // A new `Path` without a blank line before it still starts a new entry.
    if (key === 'Path' && this.fields.has('Path')) this.end();
    this.fields.set(key, eq > 0 ? text.slice(eq + 3) : '');
  }

  /** Ends the entry being read (also at the end of the output). */
  end(): void {
    const entry = entryOf(this.fields);
    if (entry) this.entries.push(entry);
    this.fields = new Map();
  }
}

/** The entries of a whole `7zz l -slt` output. */
export function parseListing(stdout: string): ArchiveEntry[] {
  const reader = new ListingReader();
  for (const line of stdout.split('\n')) reader.line(line);
  reader.end();
  return reader.entries;
}

/** Whether a name from an archive leaves the folder it is extracted into. */
export function leavesFolder(name: string): boolean {
  const parts = name.split(/[\\/]/);
  return /^[\\/]/.test(name) || /^[a-z]:/i.test(name) || parts.includes('..');
}

/** Whether a link entry's target points out of the archive's folder (absolute, or above its root). */
function linkLeaves(entry: ArchiveEntry): boolean {
  const target = entry.link ?? '';
  if (target === '' || /^[\\/]/.test(target) || /^[a-z]:/i.test(target)) return true;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(entry.path.replace(/\\/g, '/')), target.replace(/\\/g, '/')));
  return resolved === '..' || resolved.startsWith('../');
}

/**
 * Refuses an archive with an entry named out of its folder or a link out of it; the entries' totals
 * (links are not extracted and do not count).
 */
export function checkEntries(filename: string, entries: readonly ArchiveEntry[]): ArchiveTotals {
  for (const entry of entries) {
    if (leavesFolder(entry.path)) {
      throw new EngineFailure('UNSAFE_ARCHIVE', `${filename} has an entry named out of its folder (${JSON.stringify(entry.path.slice(0, 200))}); such archives are refused.`);
    }
    if (entry.link !== undefined && linkLeaves(entry)) {
      throw new EngineFailure(
        'UNSAFE_ARCHIVE',
        `${filename} has a link (${JSON.stringify(entry.path.slice(0, 200))}) pointing out of the archive; such archives are refused (links inside an archive are left out).`,
      );
    }
  }
  return { entries: entries.length, expandedBytes: entries.reduce((sum, e) => sum + (e.link === undefined && !e.folder ? (e.size ?? 0) : 0), 0) };
}
