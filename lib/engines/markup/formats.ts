/**
 * The markup engines' formats: the pandoc reader or writer each format name is given to (the only
 * names that reach pandoc's command line), and what the `markdown` engine (marked, Chromium) does
 * without pandoc. Format names are the service's (file extensions, as CloudConvert names them).
 */

/** Each input format and the pandoc reader that reads it. */
export const PANDOC_READERS: Readonly<Record<string, string>> = {
  md: 'markdown',
  rst: 'rst',
  tex: 'latex',
  org: 'org',
  textile: 'textile',
  html: 'html',
  docx: 'docx',
  odt: 'odt',
  epub: 'epub',
  rtf: 'rtf',
  mediawiki: 'mediawiki',
  dokuwiki: 'dokuwiki',
  creole: 'creole',
  jira: 'jira',
  dbk: 'docbook',
  jats: 'jats',
  opml: 'opml',
  ipynb: 'ipynb',
  t2t: 't2t',
  muse: 'muse',
  twiki: 'twiki',
  tikiwiki: 'tikiwiki',
  vimwiki: 'vimwiki',
  fb2: 'fb2',
  man: 'man',
};

export interface PandocWriter {
  /** pandoc's writer name. */
  name: string;
  /**
   * The writer puts images into its output (fetching what an image names): its document tree keeps
   * only the images pandoc took out of the input itself (pandoc-ast.ts).
   */
  embeds?: true;
  /**
   * The writer reads pandoc's own data files (its reference document, styles), which Debian's pandoc
   * 2.17 cannot read under `--sandbox` ("Could not find data file data/data/docx/…", fixed in later
   * pandoc): it runs without it, on a tree that names nothing outside the call's media folder.
   */
  dataFiles?: true;
}

/** Each output format and the pandoc writer that writes it (always `--standalone`: a whole document). */
export const PANDOC_WRITERS: Readonly<Record<string, PandocWriter>> = {
  // GitHub-flavoured Markdown: what most Markdown readers (and marked) read.
  md: { name: 'gfm' },
  rst: { name: 'rst' },
  tex: { name: 'latex' },
  org: { name: 'org' },
  textile: { name: 'textile' },
  html: { name: 'html5' },
  docx: { name: 'docx', embeds: true, dataFiles: true },
  odt: { name: 'odt', embeds: true, dataFiles: true },
  epub: { name: 'epub3', embeds: true, dataFiles: true },
  pptx: { name: 'pptx', embeds: true, dataFiles: true },
  rtf: { name: 'rtf', embeds: true },
  fb2: { name: 'fb2', embeds: true },
  ipynb: { name: 'ipynb', embeds: true },
  icml: { name: 'icml', embeds: true },
  txt: { name: 'plain' },
  mediawiki: { name: 'mediawiki' },
  dokuwiki: { name: 'dokuwiki' },
  jira: { name: 'jira' },
  adoc: { name: 'asciidoc' },
  muse: { name: 'muse' },
  dbk: { name: 'docbook5' },
  jats: { name: 'jats' },
  opml: { name: 'opml' },
  man: { name: 'man' },
  ms: { name: 'ms' },
  texi: { name: 'texinfo' },
};

export const PANDOC_INPUTS = Object.keys(PANDOC_READERS);
export const PANDOC_OUTPUTS = Object.keys(PANDOC_WRITERS);

/** Without pandoc: Markdown to HTML (marked) and, where Chromium runs, to PDF. */
export const MARKDOWN_INPUTS = ['md'] as const;

/**
 * The markup formats of CloudConvert's `document` family that its lists did not name yet
 * (format-families.ts; md, rst, tex, html, docx, odt, rtf and txt are there, epub and fb2 are ebooks,
 * pptx a presentation).
 */
export const MARKUP_DOCUMENT_FORMATS = [
  'org', 'textile', 'mediawiki', 'dokuwiki', 'creole', 'jira', 'dbk', 'jats', 'opml', 'ipynb', 't2t', 'muse', 'twiki', 'tikiwiki', 'vimwiki',
  'man', 'adoc', 'ms', 'texi', 'icml', 'latex',
] as const;
