/**
 * The user profile a LibreOffice process starts with (one-shot per call, or a warm worker's, pool.ts):
 * the settings that stop what links they can; libreoffice.ts says which and why.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const SETTINGS: ReadonlyArray<[string, string, string]> = [
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', 'true'],
  ['/org.openoffice.Inet/Settings', 'ooInetProxyType', '1'],
  ...(['HTTP', 'HTTPS', 'FTP'] as const).flatMap((scheme): Array<[string, string, string]> => [
    ['/org.openoffice.Inet/Settings', `ooInet${scheme}ProxyName`, 'proxy.invalid'],
    ['/org.openoffice.Inet/Settings', `ooInet${scheme}ProxyPort`, '9'],
  ]),
];

/** A user profile holding only the settings above; LibreOffice fills in the rest on start. */
export async function freshProfile(dir: string): Promise<string> {
  const profile = path.join(dir, 'profile');
  await mkdir(path.join(profile, 'user'), { recursive: true });
  const items = SETTINGS.map(
    ([node, name, value]) => `<item oor:path="${node}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value></prop></item>`,
  ).join('\n');
  await writeFile(
    path.join(profile, 'user', 'registrymodifications.xcu'),
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
      `${items}\n</oor:items>\n`,
  );
  return profile;
}
