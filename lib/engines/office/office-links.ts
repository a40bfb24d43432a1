/**
 * Office documents without their links, for LibreOffice where bubblewrap cannot confine it (the office
 * function in Lambda runs with ENGINE_CONFINEMENT=platform: no namespaces).
 *
 * Security decision (the office Lambda function). LibreOffice loads what a document links to: images,
 * paragraph backgrounds, OLE objects, linked sections, over http and file:// (see libreoffice.ts and
 * test/security/engine-confinement.test.ts). Locally bubblewrap leaves it no network and no file
 * outside the task's folder. In Lambda nothing can: the function's code and the runtime's
 * /proc/<pid>/environ (the role's AWS credentials) are readable by the same user, so a `file://` link
 * could put them in the PDF a client downloads. What the office function does instead, strongest first:
 * 1. a document reaches LibreOffice only as the container its format names (the first bytes: a zip
 *    package for docx/xlsx/pptx/odt/ods/odp (and docm/dotx/xlsm/xltx/ott/ots/sxw/sxc), an OLE2 file
 *    for doc/xls/ppt/dot/xlt, `{\rtf` for rtf, and no markup for txt/csv/tsv/dif): LibreOffice
 *    detects formats by content, and HTML or flat ODF XML under an office name is where links cannot
 *    be stripped; the formats that are such markup (html, xml, fodt, fods, abw) or SYLK are refused;
 * 2. in zip packages every reference outside the package is removed before conversion: OOXML
 *    relationships with TargetMode="External" (images, OLE objects, templates, external workbooks,
 *    frames; hyperlinks, which are only written into the PDF, stay) and ODF `xlink:href`s (and
 *    `form:image-data`) that are not a part of the package (hyperlinks `text:a`/`draw:a` stay); ODF's
 *    own "update links on load" setting is set to never. The parts are read as LibreOffice's parser
 *    reads them, not by patterns: any prefix (or none) for a namespace, `>` inside quoted values,
 *    character references decoded, part names in any case; a part that is not UTF-8 or that has a
 *    document type declaration (entities of its own) is refused, since the rules could not read it;
 * 3. LibreOffice runs with a fresh profile that blocks linked images, sends http/ftp to a proxy that
 *    does not resolve and runs no macro (libreoffice.ts), with an environment holding no credential
 *    (tool.ts), its HOME and profile in the task's folder under /tmp, removed after the task;
 * 4. the function's role reaches only the state table, the files bucket and the step queues
 *    (serverless.yml), and the image holds no secret.
 * Legacy binary documents (doc, xls, ppt) and RTF keep what their fields say: their links are images
 * (blocked by the profile) and INCLUDETEXT-style fields, which LibreOffice shows as their stored result
 * without reading the file (checked with LibreOffice 7.4).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { EngineFailure } from '../core/errors.js';
import { checkedDrawing } from './slides-links.js';

const OOXML = new Set(['docx', 'xlsx', 'pptx', 'docm', 'dotx', 'xlsm', 'xltx']);
// OpenOffice.org 1 packages (sxw, sxc) link with the same XLink attributes as ODF.
const ODF = new Set(['odt', 'ods', 'odp', 'ott', 'ots', 'sxw', 'sxc']);
const OLE2 = new Set(['doc', 'xls', 'ppt', 'dot', 'xlt']);
/**
 * Formats read as markup with no package to rewrite (HTML, flat ODF and Word 2003 XML, AbiWord) or
 * whose formulas may name other files (SYLK): refused where only the platform confines LibreOffice.
 */
const UNSTRIPPABLE = new Set(['html', 'xml', 'fodt', 'fods', 'abw', 'slk']);
// Impress and Draw's formats (slides-formats.ts) in the same containers; the others: slides-links.ts.
for (const format of ['pptm', 'ppsx', 'potx', 'vsdx']) OOXML.add(format);
for (const format of ['otp', 'odg', 'otg']) ODF.add(format);
for (const format of ['pps', 'pot']) OLE2.add(format);
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
/** The most one XML part of a package may inflate to (a zip bomb is refused, not expanded). */
const MAX_PART_BYTES = 64 * 1024 * 1024;

interface Entry {
  name: Buffer;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  data: Buffer;
}

function notA(format: string, filename: string): EngineFailure {
  return new EngineFailure('INVALID_INPUT', `${filename} is not a ${format} file (its content is another format, which the office engine does not read here).`);
}

function readZip(zip: Buffer, format: string, filename: string): Entry[] {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw notA(format, filename);
  const count = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new EngineFailure('INVALID_INPUT', `${filename} is a zip64 package, which the office engine does not read here.`);
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + 46 > zip.length || zip.readUInt32LE(offset) !== 0x02014b50) throw notA(format, filename);
    const nameLength = zip.readUInt16LE(offset + 28);
    const flags = zip.readUInt16LE(offset + 8);
    if (flags & 0x1) throw new EngineFailure('INVALID_INPUT', `${filename} is encrypted.`);
    const entry = {
      name: zip.subarray(offset + 46, offset + 46 + nameLength),
      method: zip.readUInt16LE(offset + 10),
      crc: zip.readUInt32LE(offset + 16),
      compressedSize: zip.readUInt32LE(offset + 20),
      size: zip.readUInt32LE(offset + 24),
    };
    const local = zip.readUInt32LE(offset + 42);
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50) throw notA(format, filename);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + entry.compressedSize > zip.length) throw notA(format, filename);
    entries.push({ ...entry, data: zip.subarray(start, start + entry.compressedSize) });
    offset += 46 + nameLength + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
  }
  return entries;
}

function writeZip(entries: Entry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00
    local.writeUInt32LE(e.crc, 14);
    local.writeUInt32LE(e.compressedSize, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(e.name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    local.copy(central, 8, 6, 26);
    central.writeUInt16LE(e.name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, e.name, e.data);
    centrals.push(central, e.name);
    offset += 30 + e.name.length + e.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function inflate(e: Entry, filename: string): string {
  if (e.size > MAX_PART_BYTES) throw new EngineFailure('FILE_TOO_LARGE', `${filename} has a part larger than ${MAX_PART_BYTES} bytes.`);
  if (e.method !== 0 && e.method !== 8) throw new EngineFailure('INVALID_INPUT', `${filename} uses a compression method the office engine does not read here.`);
  let bytes: Buffer;
  try {
    bytes = e.method === 0 ? e.data : inflateRawSync(e.data, { maxOutputLength: MAX_PART_BYTES });
  } catch {
    throw new EngineFailure('INVALID_INPUT', `${filename} is damaged (a part does not inflate).`);
  }
  // The rules read UTF-8 text: a part in UTF-16 (or any other encoding) would pass them unread.
  const notUtf8 = () => new EngineFailure('INVALID_INPUT', `${filename} has a part that is not UTF-8 text, which the office engine does not read here.`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw notUtf8();
  }
  const declared = /^<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']/.exec(text)?.[1];
  if (text.includes('\0') || (declared !== undefined && !/^utf-?8$/i.test(declared.trim()))) throw notUtf8();
  return text;
}

function deflate(e: Entry, text: string): Entry {
  const raw = Buffer.from(text, 'utf8');
  const data = deflateRawSync(raw);
  return { name: e.name, method: 8, crc: crc32(raw), compressedSize: data.length, size: raw.length, data };
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** An attribute value as an XML parser reads it: the five named references and character references decoded. */
function attributeValue(raw: string): string {
  return raw.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return XML_ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

const escapeAttribute = (value: string) => value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A start tag: its name as written (`prefix:local`) and its attributes, values decoded. */
interface StartTag {
  name: string;
  attributes: Array<[name: string, value: string]>;
}

/** What a rule makes of a start tag: kept as written, rewritten, or the whole element dropped. */
type TagAction = 'keep' | 'drop' | StartTag;

const localName = (name: string) => name.slice(name.indexOf(':') + 1);
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * Applies `rule` to every start tag of an XML part, reading it as an XML parser does: quoted attribute
 * values may hold `>`, any prefix may name a namespace, values are decoded; comments, CDATA and
 * processing instructions are passed over. `text(tag)` may replace the character data that follows
 * a start tag (up to the next markup). A part with a document type declaration (which could define
 * entities) or that does not read as XML is refused.
 */
function rewriteTags(xml: string, filename: string, rule: (tag: StartTag) => TagAction, text?: (tag: StartTag) => string | undefined): string {
  const damaged = () => new EngineFailure('INVALID_INPUT', `${filename} is damaged (a part is not well-formed XML).`);
  const out: string[] = [];
  let at = 0;
  let dropping = 0;
  const emit = (piece: string) => {
    if (dropping === 0) out.push(piece);
  };
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    if (lt < 0) {
      emit(xml.slice(at));
      break;
    }
    emit(xml.slice(at, lt));
    const skipTo = (end: string) => {
      const stop = xml.indexOf(end, lt);
      if (stop < 0) throw damaged();
      emit(xml.slice(lt, stop + end.length));
      at = stop + end.length;
    };
    if (xml.startsWith('<!--', lt)) skipTo('-->');
    else if (xml.startsWith('<![CDATA[', lt)) skipTo(']]>');
    else if (xml.startsWith('<?', lt)) skipTo('?>');
    else if (xml.startsWith('<!', lt)) throw new EngineFailure('INVALID_INPUT', `${filename} holds a document type declaration, which office documents do not have.`);
    else if (xml[lt + 1] === '/') {
      const gt = xml.indexOf('>', lt);
      if (gt < 0) throw damaged();
      emit(xml.slice(lt, gt + 1));
      if (dropping > 0) dropping--;
      at = gt + 1;
    } else {
      // A start tag: name, then name="value" pairs, then > or />.
      let i = lt + 1;
      while (i < xml.length && !isSpace(xml[i]) && xml[i] !== '>' && xml[i] !== '/') i++;
      const tag: StartTag = { name: xml.slice(lt + 1, i), attributes: [] };
      let selfClosing = false;
      for (;;) {
        while (isSpace(xml[i])) i++;
        if (xml[i] === '>') break;
        if (xml[i] === '/' && xml[i + 1] === '>') {
          selfClosing = true;
          i++;
          break;
        }
        const nameStart = i;
        while (i < xml.length && !isSpace(xml[i]) && xml[i] !== '=' && xml[i] !== '>' && xml[i] !== '/') i++;
        const name = xml.slice(nameStart, i);
        while (isSpace(xml[i])) i++;
        if (!name || xml[i] !== '=') throw damaged();
        i++;
        while (isSpace(xml[i])) i++;
        const quote = xml[i];
        if (quote !== '"' && quote !== "'") throw damaged();
        const close = xml.indexOf(quote, i + 1);
        if (close < 0) throw damaged();
        tag.attributes.push([name, attributeValue(xml.slice(i + 1, close))]);
        i = close + 1;
      }
      if (i >= xml.length) throw damaged();
      at = i + 1;
      const action = dropping > 0 ? 'keep' : rule(tag);
      if (action === 'drop') {
        if (!selfClosing) dropping++;
      } else if (action === 'keep') {
        emit(xml.slice(lt, at));
        if (dropping > 0 && !selfClosing) dropping++;
      } else {
        emit(`<${action.name}${action.attributes.map(([n, v]) => ` ${n}="${escapeAttribute(v)}"`).join('')}${selfClosing ? '/>' : '>'}`);
      }
      const replacement = dropping === 0 && !selfClosing && text ? text(tag) : undefined;
      if (replacement !== undefined) {
        const next = xml.indexOf('<', at);
        if (next < 0 || xml[next + 1] !== '/') throw damaged();
        emit(replacement);
        at = next;
      }
    }
  }
  return out.join('');
}

const attribute = (tag: StartTag, name: string) => tag.attributes.find(([n]) => n === name)?.[1];

/**
 * OOXML relationships (`Relationship` under any prefix): external ones go, but hyperlinks (never
 * fetched, only written into the PDF). TargetMode is compared as a parser reads it (character
 * references decoded, any case, white space around).
 */
function stripRelationships(xml: string, filename: string): string {
  return rewriteTags(xml, filename, (tag) => {
    if (localName(tag.name) !== 'Relationship') return 'keep';
    if ((attribute(tag, 'TargetMode') ?? '').trim().toLowerCase() !== 'external') return 'keep';
    return /\/hyperlink$/.test((attribute(tag, 'Type') ?? '').trim()) ? 'keep' : 'drop';
  });
}

/** A reference to a part of the package itself (`Pictures/x.png`, `./Object 1`, `#anchor`). */
function insidePackage(href: string): boolean {
  let value = href.trim();
  if (value === '' || value.startsWith('#')) return true;
  try {
    // `%2e%2e/`, `file%3a…`: judged as the URL they decode to.
    value = decodeURIComponent(value);
  } catch {
    return false;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith('/') || value.includes('\\') || value.includes('&')) return false;
  return !value.split('/').includes('..');
}

/** ODF attributes that name a resource to load, by local name (under whatever prefix the document binds). */
const ODF_LINK_ATTRIBUTES = new Set(['href', 'image-data']);

/**
 * ODF: every link out of the package emptied (`xlink:href` under any prefix, `form:image-data`),
 * except on hyperlinks (`text:a`, `draw:a`); links never updated on load (`LinkUpdateMode` 0).
 */
function stripOdfLinks(xml: string, filename: string): string {
  return rewriteTags(
    xml,
    filename,
    (tag) => {
      if (localName(tag.name) === 'a') return 'keep';
      let changed = false;
      const attributes = tag.attributes.map(([name, value]): [string, string] => {
        if (!ODF_LINK_ATTRIBUTES.has(localName(name)) || insidePackage(value)) return [name, value];
        changed = true;
        return [name, ''];
      });
      return changed ? { name: tag.name, attributes } : 'keep';
    },
    (tag) => (localName(tag.name) === 'config-item' && tag.attributes.some(([n, v]) => localName(n) === 'name' && v === 'LinkUpdateMode') ? '0' : undefined),
  );
}

/**
 * Checks that `file` is the container its `format` names and removes the references out of zip
 * packages (see the file's comment), rewriting the file in place. Throws INVALID_INPUT otherwise.
 */
export async function stripExternalLinks(file: string, format: string, filename: string): Promise<void> {
  if (UNSTRIPPABLE.has(format)) {
    throw new EngineFailure('UNSUPPORTED_FORMAT', `${filename}: the office engine here cannot remove the external references of a ${format} file, so it does not convert it; send it as docx, odt, xlsx or ods.`);
  }
  const bytes = await readFile(file);
  if (checkedDrawing(bytes, format, filename)) return;
  if (OLE2.has(format)) {
    if (!bytes.subarray(0, 8).equals(OLE2_MAGIC)) throw notA(format, filename);
    return;
  }
  if (format === 'rtf') {
    if (!bytes.subarray(0, 5).equals(Buffer.from('{\\rtf'))) throw notA(format, filename);
    return;
  }
  if (!OOXML.has(format) && !ODF.has(format)) {
    // txt, csv, tsv, dif: no markup LibreOffice would read as HTML or XML instead.
    const head = bytes.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '').trimStart();
    if (head.startsWith('<') || bytes.subarray(0, 4).equals(ZIP_MAGIC) || bytes.subarray(0, 8).equals(OLE2_MAGIC) || head.startsWith('{\\rtf')) throw notA(format, filename);
    return;
  }
  if (!bytes.subarray(0, 4).equals(ZIP_MAGIC)) throw notA(format, filename);
  const entries = readZip(bytes, format, filename);
  let changed = false;
  const out = entries.map((e) => {
    const name = e.name.toString('utf8');
    const lower = name.toLowerCase();
    const rewrite = OOXML.has(format) ? (lower.endsWith('.rels') ? stripRelationships : undefined) : lower.endsWith('.xml') ? stripOdfLinks : undefined;
    if (!rewrite) return e;
    const text = inflate(e, filename);
    const stripped = rewrite(text, filename);
    if (stripped === text) return e;
    changed = true;
    return deflate(e, stripped);
  });
  if (changed) await writeFile(file, writeZip(out));
}
