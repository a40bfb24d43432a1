/** RFC 2047 encoded-words, as S3 answers user metadata that is not ASCII (an upload form's file name). */
import { describe, expect, it } from 'vitest';
import { decodeMimeWords } from '#lib/adapters/file-store/names.js';
import { encodeMimeWord } from '../../local/s3/form-upload.js';

describe('decodeMimeWords', () => {
  it('decodes B and Q words, adjacent words joined, ASCII as it is', () => {
    expect(decodeMimeWords('=?UTF-8?B?csOpc3Vtw6kucGRm?=')).toBe('résumé.pdf');
    expect(decodeMimeWords('=?utf-8?Q?r=C3=A9sum=C3=A9_2026.pdf?=')).toBe('résumé 2026.pdf');
    expect(decodeMimeWords('=?UTF-8?B?5p2x?= =?UTF-8?B?5Lqs?=.txt')).toBe('東京.txt');
    expect(decodeMimeWords('plain name.txt')).toBe('plain name.txt');
    expect(decodeMimeWords('=?UTF-8?X?abc?=')).toBe('=?UTF-8?X?abc?=');
  });

  it('reads back what the local S3 front stores', () => {
    for (const name of ['résumé 2026 – 東京.pdf', 'a.txt', '=?not a word', '😀.png']) expect(decodeMimeWords(encodeMimeWord(name))).toBe(name);
  });
});
