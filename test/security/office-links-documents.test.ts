/**
 * Where only the platform confines LibreOffice (the office Lambda function), every Writer and Calc
 * format of lib/engines/office/office-formats.ts either loses its external references before
 * LibreOffice opens it (office-links.ts) or is refused: the macro and template flavours of OOXML and
 * ODF, the OpenOffice.org 1 packages, the legacy binary templates, and the text formats; flat XML,
 * HTML, AbiWord and SYLK cannot be stripped and are refused with UNSUPPORTED_FORMAT.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripExternalLinks } from '#lib/engines/office/office-links.js';
import { zip } from '../fixtures/engine-fixtures.js';
import { packagePart } from '../support/office-readers.js';

const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const LINK = 'http://127.0.0.1:9/stripped/book.xlsx';
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

describe('office-links.ts for every Writer and Calc format (platform confinement)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'office-links-docs-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function strip(format: string, bytes: Buffer): Promise<Buffer> {
    const file = path.join(dir, `in.${format}`);
    writeFileSync(file, bytes);
    await stripExternalLinks(file, format, `in.${format}`);
    return readFileSync(file);
  }

  it.each(['docm', 'dotx', 'xlsm', 'xltx'])('%s: an external workbook or image relationship is removed', async (format) => {
    const rels = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${RELS}"><Relationship Id="r1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLinkPath" Target="${LINK}" TargetMode="External"/></Relationships>`;
    const out = await strip(format, await zip({ '[Content_Types].xml': '<Types/>', 'xl/externalLinks/_rels/externalLink1.xml.rels': rels }));
    expect(await packagePart(out, 'xl/externalLinks/_rels/externalLink1.xml.rels')).not.toContain('127.0.0.1');
  });

  it.each([
    ['ott', 'urn:oasis:names:tc:opendocument:xmlns:office:1.0'],
    ['ots', 'urn:oasis:names:tc:opendocument:xmlns:office:1.0'],
    ['sxw', 'http://openoffice.org/2000/office'],
    ['sxc', 'http://openoffice.org/2000/office'],
  ])('%s: an xlink:href out of the package is emptied', async (format, office) => {
    const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="${office}" xmlns:draw="http://openoffice.org/2000/drawing" xmlns:xlink="http://www.w3.org/1999/xlink"><draw:image xlink:href="${LINK}"/></office:document-content>`;
    const out = await packagePart(await strip(format, await zip({ mimetype: 'application/x', 'content.xml': content }, ['mimetype'])), 'content.xml');
    expect(out).not.toContain('127.0.0.1');
    expect(out).toContain('<draw:image');
  });

  it.each(['dot', 'xlt'])('%s: only an OLE2 file goes in under that name', async (format) => {
    await expect(strip(format, Buffer.concat([OLE2, Buffer.alloc(504)]))).resolves.toBeInstanceOf(Buffer);
    await expect(strip(format, Buffer.from('<html><img src="http://127.0.0.1:9/x.png"></html>'))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it.each(['tsv', 'dif'])('%s: plain text goes in, markup under that name does not', async (format) => {
    await expect(strip(format, Buffer.from('TABLE\n0,1\n""\n'))).resolves.toBeInstanceOf(Buffer);
    await expect(strip(format, Buffer.from('<?xml version="1.0"?><office:document/>'))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it.each(['html', 'xml', 'fodt', 'fods', 'abw', 'slk'])('%s: refused, its links cannot be stripped', async (format) => {
    await expect(strip(format, Buffer.from('ID;PWXL;N;E\nC;Y1;X1;K"plain"\nE\n'))).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(/cannot|not/) });
  });
});
