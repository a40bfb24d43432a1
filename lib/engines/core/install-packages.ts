/**
 * The Debian packages that install a document engine that no npm package ships, all its parts
 * included: the start banner and `npm run formats` say, per package, which formats installing it adds
 * here (counted from the engines' capabilities, so an engine added to this table shows its formats
 * by itself). Each of these engines follows links in documents and runs only fully confined
 * (catalog.ts `confined`), so bubblewrap belongs to every install line: without it the engine stays off.
 */
export const ENGINE_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  // Writer, Calc, Impress and Draw; the -writer-nogui package alone leaves spreadsheets and slides out.
  libreoffice: ['libreoffice-nogui', 'bubblewrap'],
  calibre: ['calibre', 'bubblewrap'],
  pandoc: ['pandoc', 'bubblewrap'],
};

/** The command that installs an engine of the table (undefined for the others). */
export function installCommand(engine: string): string | undefined {
  const packages = ENGINE_PACKAGES[engine];
  return packages && `apt-get install ${packages.join(' ')}`;
}
