/**
 * What archive/extract decides from an archive's listing before 7-Zip extracts anything (the parse of
 * `7zz l -slt`, names out of their folder, links out of the archive, the totals and their limits), and
 * the archive formats' names (`x.tar.gz` is tar.gz; `tgz` is its alias).
 */
import { describe, expect, it } from 'vitest';
import { checkEntries, leavesFolder, parseListing } from '#lib/engines/archive/listing.js';
import { EngineFailure } from '#lib/engines/core/errors.js';
import { formatOfFilename, normalizeFormat } from '#lib/engines/core/formats.js';
import { checkArchiveTotals } from '#lib/engines/core/limits.js';

const LISTING = `
Listing archive: in.tar

--
Path = in.tar
Type = tar

----------
Path = docs
Folder = +
Size = 0
Mode = drwxr-xr-x
Symbolic Link = 

Path = docs/a.txt
Folder = -
Size = 1200
Mode = -rw-r--r--
Symbolic Link = 
Encrypted = -

Path = docs/link
Folder = -
Size = 0
Mode = lrwxrwxrwx
Symbolic Link = a.txt

Path = secret.bin
Folder = -
Size = 34
Attributes = A
Encrypted = +
`;

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof EngineFailure ? err.code : String(err);
  }
  return undefined;
};

describe('an archive listing', () => {
  it('reads each entry: folder, size, link, encryption', () => {
    expect(parseListing(LISTING)).toEqual([
      { path: 'docs', folder: true, size: 0, link: undefined, encrypted: false },
      { path: 'docs/a.txt', folder: false, size: 1200, link: undefined, encrypted: false },
      { path: 'docs/link', folder: false, size: 0, link: 'a.txt', encrypted: false },
      { path: 'secret.bin', folder: false, size: 34, link: undefined, encrypted: true },
    ]);
  });

  it('counts every entry and the bytes of the files (links left out)', () => {
    expect(checkEntries('in.tar', parseListing(LISTING))).toEqual({ entries: 4, expandedBytes: 1234 });
  });

  it('tells names that leave their folder', () => {
    for (const name of ['../x', 'a/../../x', '/etc/passwd', '\\windows\\x', 'C:\\x', 'a\\..\\..\\x']) expect(leavesFolder(name), name).toBe(true);
    for (const name of ['a', 'a/b/c.txt', '..a', 'a..b/c', '.hidden']) expect(leavesFolder(name), name).toBe(false);
  });

  it('refuses an entry out of its folder and a link out of the archive, not a link inside it', () => {
    const entry = (path: string, link?: string) => ({ path, folder: false, size: 1, link, encrypted: false });
    expect(code(() => checkEntries('a.zip', [entry('../../evil')]))).toBe('UNSAFE_ARCHIVE');
    expect(code(() => checkEntries('a.rar', [entry('out', '../../etc/passwd')]))).toBe('UNSAFE_ARCHIVE');
    expect(code(() => checkEntries('a.rar', [entry('out', '/etc/passwd')]))).toBe('UNSAFE_ARCHIVE');
    expect(code(() => checkEntries('a.rar', [entry('d/out', '../../x')]))).toBe('UNSAFE_ARCHIVE');
    // A link whose target the listing does not give is refused too.
    expect(code(() => checkEntries('a.zip', [entry('l', '')]))).toBe('UNSAFE_ARCHIVE');
    expect(code(() => checkEntries('a.tar', [entry('d/e/l', '../f.txt'), entry('d/l', 'e/../f')]))).toBeUndefined();
  });
});

describe('the archive limits', () => {
  const limits = { ARCHIVE_MAX_ENTRIES: 10, ARCHIVE_MAX_EXPANDED_BYTES: 2 ** 30, ARCHIVE_MAX_RATIO: 100 };
  const check = (entries: number, expandedBytes: number, archiveBytes: number) => code(() => checkArchiveTotals('a.zip', { entries, expandedBytes }, archiveBytes, limits));

  it('refuse too many entries, too many bytes, too high a ratio', () => {
    expect(check(11, 10, 10)).toBe('ARCHIVE_TOO_LARGE');
    expect(check(1, 2 ** 30 + 1, 2 ** 30)).toBe('ARCHIVE_TOO_LARGE');
    expect(check(1, 64 * 2 ** 20, 64 * 2 ** 10)).toBe('ARCHIVE_TOO_LARGE');
  });

  it('let through what is within them, and small files that compress well', () => {
    expect(check(10, 2 ** 30, 2 ** 28)).toBeUndefined();
    expect(check(1, 8 * 2 ** 20, 1000)).toBeUndefined();
  });
});

describe('archive format names', () => {
  it('reads a compressed tar from both extensions', () => {
    expect(['a.tar.gz', 'a.TAR.BZ2', 'a.b.tar.xz', 'a.gz', 'a.tgz', 'a.tbz2', 'a.txz', '.tar.gz'].map(formatOfFilename)).toEqual([
      'tar.gz',
      'tar.bz2',
      'tar.xz',
      'gz',
      'tar.gz',
      'tar.bz2',
      'tar.xz',
      'gz',
    ]);
    expect(['a.tar.lzma', 'a.TAR.7Z', 'a.Z', 'a.lzma'].map(formatOfFilename)).toEqual(['tar.lzma', 'tar.7z', 'z', 'lzma']);
  });

  it('has one name for each format', () => {
    expect(['tgz', 'tbz2', 'tbz', 'txz', 'gzip', 'bzip2', 'tar.gz'].map(normalizeFormat)).toEqual(['tar.gz', 'tar.bz2', 'tar.bz2', 'tar.xz', 'gz', 'bz2', 'tar.gz']);
  });
});
