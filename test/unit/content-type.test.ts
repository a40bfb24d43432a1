/**
 * The content type of a task file (lib/file-api/operations/framework/content-type.ts): the name first, else the content's
 * signature, else what the source declared; never served inline when a browser would run it; and
 * the first bytes of a stream looked at without losing any.
 */
import { PDFDocument } from 'pdf-lib';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fileType, isActiveType, peekHead, servedAs, typeOfContent } from '#lib/file-api/operations/framework/content-type.js';

const latin1 = (s: string) => Buffer.from(s, 'latin1');
const box = (type: string, brand: string) => Buffer.concat([Buffer.from([0, 0, 0, 0x18]), latin1(`${type}${brand}\0\0\0\0isom`), Buffer.alloc(16)]);
/** An EBML header whose DocType is `docType`, as Matroska muxers write it. */
const ebml = (docType: string) => Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x80 + docType.length]), latin1(docType), Buffer.alloc(16)]);
const riff = (form: string) => Buffer.concat([latin1('RIFF'), Buffer.from([0x24, 0, 0, 0]), latin1(form), Buffer.alloc(32)]);

describe('the type of a file named without an extension, from its first bytes', () => {
  it('knows the images sharp writes and a PDF pdf-lib writes', async () => {
    const image = sharp({ create: { width: 4, height: 4, channels: 3, background: '#888' } });
    const [png, jpeg, gif, webp, tiff] = await Promise.all([image.clone().png().toBuffer(), image.clone().jpeg().toBuffer(), image.clone().gif().toBuffer(), image.clone().webp().toBuffer(), image.clone().tiff().toBuffer()]);
    const doc = await PDFDocument.create();
    doc.addPage();
    const pdf = Buffer.from(await doc.save());
    expect([png, jpeg, gif, webp, tiff, pdf].map((b) => fileType('upload', b))).toEqual(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/tiff', 'application/pdf']);
  });

  it('knows audio and video containers by their signatures', () => {
    const heads: Array<[Buffer, string]> = [
      [box('ftyp', 'isom'), 'video/mp4'],
      [box('ftyp', 'qt  '), 'video/quicktime'],
      [box('ftyp', 'M4A '), 'audio/mp4'],
      [ebml('webm'), 'video/webm'],
      [ebml('matroska'), 'video/x-matroska'],
      [riff('WAVE'), 'audio/wav'],
      [Buffer.concat([latin1('ID3'), Buffer.from([4, 0, 0, 0, 0, 0, 0])]), 'audio/mpeg'],
      // An MPEG-1 Layer III frame header (no ID3 tag): 128 kbit/s, 44.1 kHz.
      [Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0]), 'audio/mpeg'],
      [Buffer.concat([latin1('OggS'), Buffer.from([0, 2]), Buffer.alloc(20)]), 'audio/ogg'],
      [Buffer.concat([latin1('fLaC'), Buffer.from([0, 0, 0, 0x22])]), 'audio/flac'],
      [Buffer.concat([latin1('PK'), Buffer.from([3, 4, 20, 0]), Buffer.alloc(24)]), 'application/zip'],
    ];
    expect(heads.map(([head]) => typeOfContent(head))).toEqual(heads.map(([, type]) => type));
  });

  it('knows an AAC ADTS frame (an audio format of its own since the media formats grew)', () => {
    expect(typeOfContent(Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x01, 0x7f, 0xfc]))).toBe('audio/aac');
  });

  it('guesses nothing for other bytes: text, random bytes, nothing at all', () => {
    expect(typeOfContent(Buffer.from('just some words, no tags'))).toBeUndefined();
    expect(typeOfContent(Buffer.from([0x13, 0x37, 0x00, 0xfe, 0x42]))).toBeUndefined();
    expect(typeOfContent(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('which says the type', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  it('is the name first, then the content, then what the source declared when it says something', () => {
    expect(fileType('photo.jpg', png)).toBe('image/jpeg');
    expect(fileType('photo', png, 'text/plain')).toBe('image/png');
    expect(fileType('notes', Buffer.from('words'), 'text/plain; charset=utf-8')).toBe('text/plain; charset=utf-8');
    expect(fileType('blob', Buffer.from('words'), 'binary/octet-stream')).toBeUndefined();
    expect(fileType('data.bin', png)).toBe('image/png');
    expect(fileType('x.constructor')).toBeUndefined();
  });

  it('serves HTML, SVG and XML as attachments only, with their type; other types inline when asked', () => {
    expect(['text/html; charset=utf-8', 'image/svg+xml', 'application/xhtml+xml', 'application/xml', 'application/rss+xml'].every(isActiveType)).toBe(true);
    expect(['image/png', 'text/plain', 'application/pdf', 'video/mp4', 'application/json'].some(isActiveType)).toBe(false);
    expect(servedAs('page.html', undefined, true)).toEqual({ contentType: 'text/html', inline: false });
    expect(servedAs('index', 'text/html', true)).toEqual({ contentType: 'text/html', inline: false });
    expect(servedAs('drawing.svg', 'image/png', true)).toEqual({ contentType: 'image/svg+xml', inline: false });
    expect(servedAs('photo.png', undefined, true)).toEqual({ contentType: 'image/png', inline: true });
    expect(servedAs('blob', 'binary/octet-stream', true)).toEqual({ inline: true });
  });
});

describe('peekHead', () => {
  it('gives the first bytes and then the whole stream, byte for byte, from chunks of any size', async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 251));
    const chunks = Array.from({ length: 700 }, (_, i) => bytes.subarray(i * 100, (i + 1) * 100));
    const { head, body } = await peekHead(Readable.from(chunks), 512);
    expect(head.equals(bytes.subarray(0, 512))).toBe(true);
    expect(Buffer.concat(await body.toArray()).equals(bytes)).toBe(true);

    const short = await peekHead(Readable.from([Buffer.from('tiny')]), 512);
    expect(short.head.toString()).toBe('tiny');
    expect(Buffer.concat(await short.body.toArray()).toString()).toBe('tiny');
  });

  it('passes on an error of the stream after the first bytes', async () => {
    async function* failing() {
      yield Buffer.alloc(600);
      throw new Error('connection reset');
    }
    const { body } = await peekHead(Readable.from(failing()), 512);
    await expect(body.toArray()).rejects.toThrow('connection reset');
  });
});
