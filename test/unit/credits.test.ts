/** What tasks cost and what they pay: the reservation from the operations' definitions, the settlement rules, the balance as shown. */
import { describe, expect, it } from 'vitest';
import { CHARGED_FAILURES, chargeOf, creditsView, parseBalance, UNLIMITED_CREDITS_SHOWN } from '#lib/file-api/account/credits.js';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { ENGINES } from '#lib/engines/core/catalog.js';
import { minimumCredits, reservationFor } from '#lib/file-api/operations/framework/credits.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { operationDefinition } from '#lib/file-api/operations/index.js';
import type { InputFile } from '#lib/file-api/operations/framework/types.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';

/** Every engine installed (LibreOffice with Writer), whatever this machine has. */
const registry = newEngineRegistry(
  parseEngineConfig({}),
  ENGINES.map((d) => ({ ...d, detect: () => ({ versions: [{ version: '1.0' }], features: ['writer', 'calc', 'impress'] }) })),
);
/** LibreOffice missing. */
const withoutOffice = newEngineRegistry(
  parseEngineConfig({ ENGINES_DISABLED: 'libreoffice' }),
  ENGINES.map((d) => ({ ...d, detect: () => ({ versions: [{ version: '1.0' }] }) })),
);

const task = (operation: string, payload: Record<string, unknown>, dependsOn: string[] = []) =>
  ({ id: 't', userId: 1, operation, payload: { operation, ...payload }, dependsOn }) as unknown as TaskRecord;
const file = (filename: string, taskId = 'in'): InputFile => ({ filename, size: 10, taskId, key: `tasks/${taskId}/${filename}` });
const reserve = (operation: string, payload: Record<string, unknown>, inputs: InputFile[], dependsOn?: string[], r = registry) =>
  reservationFor(r, operationDefinition(operation)!, task(operation, payload, dependsOn), inputs);

describe('what a task reserves when it starts', () => {
  it('is the capability\'s credits for each input file the run will process one by one', () => {
    expect(reserve('convert', { output_format: 'jpg' }, [file('a.png')])).toBe(1);
    expect(reserve('convert', { output_format: 'jpg' }, [file('a.png'), file('b.gif'), file('c.webp')])).toBe(3);
    expect(reserve('convert', { output_format: 'pdf' }, [file('letter.docx')])).toBe(2);
    expect(reserve('convert', { output_format: 'pdf' }, [file('letter.docx'), file('photo.png')])).toBe(3);
  });

  it('follows input_format over the file name, as the run does', () => {
    expect(reserve('convert', { output_format: 'pdf', input_format: 'docx' }, [file('upload.bin')])).toBe(2);
  });

  it('is one call for operations that take every input at once (merge, archive)', () => {
    expect(reserve('merge', { output_format: 'pdf' }, [file('a.pdf'), file('b.pdf'), file('c.png')])).toBe(1);
    expect(reserve('archive', { output_format: 'zip' }, [file('a.pdf'), file('b.txt')])).toBe(1);
  });

  it('reserves the dearest call when the name does not tell the format or nothing here serves it', () => {
    expect(reserve('convert', { output_format: 'pdf' }, [file('scan')])).toBe(2);
    expect(reserve('convert', { output_format: 'pdf' }, [file('letter.docx')], undefined, withoutOffice)).toBe(2);
    expect(reserve('watermark', { text: 'x' }, [file('clip')])).toBe(2);
  });

  it('leaves out a watermark\'s image, which is not processed', () => {
    const payload = { input: ['video', 'logo'], image: 'logo', output_format: undefined };
    expect(reserve('watermark', payload, [file('clip.mp4', 'v'), file('logo.png', 'l')], ['v', 'l'])).toBe(2);
    expect(reserve('watermark', payload, [file('photo.jpg', 'v'), file('logo.png', 'l')], ['v', 'l'])).toBe(1);
  });

  it('counts a task without input as one call, and imports and exports as free', () => {
    expect(reserve('capture-website', { url: 'https://example.com', output_format: 'pdf' }, [])).toBe(1);
    expect(reserve('import/url', { url: 'https://example.com/a' }, [])).toBe(0);
    expect(reserve('export/url', {}, [file('a.pdf')])).toBe(0);
  });

  it('has a least cost per operation, which creation checks the balance against', () => {
    expect(minimumCredits(operationDefinition('convert')!)).toBe(1);
    expect(minimumCredits(operationDefinition('watermark')!)).toBe(1);
    expect(minimumCredits(operationDefinition('import/base64')!)).toBe(0);
    expect(minimumCredits(operationDefinition('export/s3')!)).toBe(0);
  });
});

describe('what an ended task pays', () => {
  const ended = (status: 'finished' | 'error', extra: Partial<TaskRecord>) =>
    ({ status, code: null, credits: null, reservation: { credits: 3, held: true }, ...extra }) as Pick<TaskRecord, 'status' | 'code' | 'credits' | 'reservation'>;

  it('a finished task pays its run\'s cost, never more than it reserved', () => {
    expect(chargeOf(ended('finished', { credits: 3 }))).toBe(3);
    expect(chargeOf(ended('finished', { credits: 1 }))).toBe(1);
    expect(chargeOf(ended('finished', { credits: 5 }))).toBe(3);
    expect(chargeOf(ended('finished', { credits: 0, reservation: undefined }))).toBe(0);
  });

  it('a task whose input was at fault pays its reservation', () => {
    for (const code of ['INVALID_INPUT', 'ENCRYPTED_INPUT', 'INVALID_PASSWORD', 'FILE_TOO_LARGE', 'IMAGE_TOO_LARGE', 'TOO_MANY_PAGES']) {
      expect(CHARGED_FAILURES.has(code)).toBe(true);
      expect(chargeOf(ended('error', { code }))).toBe(3);
    }
  });

  it('engine and infrastructure failures, timeouts, cancellation and refusals are refunded', () => {
    for (const code of ['CONVERSION_FAILED', 'ENGINE_UNAVAILABLE', 'INTERNAL_ERROR', 'TIMEOUT', 'CANCELLED', 'UNSUPPORTED_FORMAT', 'CREDITS_EXCEEDED', 'INPUT_TASK_FAILED', 'SOMETHING_NEW']) {
      expect(chargeOf(ended('error', { code }))).toBe(0);
    }
  });
});

describe('the balance as GET /v2/users/me shows it', () => {
  it('shows a counted balance as it is, an unlimited one as the largest 32-bit integer, flagged', () => {
    expect(creditsView({ credits: 17 })).toEqual({ credits: 17, credits_unlimited: false });
    expect(creditsView({ credits: 0, creditsUnlimited: true })).toEqual({ credits: UNLIMITED_CREDITS_SHOWN, credits_unlimited: true });
    expect(UNLIMITED_CREDITS_SHOWN).toBe(2 ** 31 - 1);
  });

  it('reads an operator\'s balance: a whole number or unlimited', () => {
    expect(parseBalance('20')).toBe(20);
    expect(parseBalance(' Unlimited ')).toBe('unlimited');
    expect(parseBalance('0')).toBe(0);
    for (const bad of ['-1', '2.5', '', 'lots', '1e3']) expect(parseBalance(bad)).toBeUndefined();
  });
});
