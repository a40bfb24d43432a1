/** The passwords of the pdf/… operations are secrets by their names (lib/kernel/redact.ts). */
import { describe, expect, it } from 'vitest';
import { HIDDEN, redactText, redactValue, secretValues } from '#lib/kernel/redact.js';

describe('pdf/encrypt and pdf/decrypt passwords', () => {
  const payload = { operation: 'pdf/encrypt', password: 'old pass 1', set_password: 'open me 22', set_owner_password: 'owner 333', allow_print: false, pages: '1-3' };

  it('are hidden in a payload as shown; other arguments are kept', () => {
    expect(redactValue(payload)).toEqual({ ...payload, password: HIDDEN, set_password: HIDDEN, set_owner_password: HIDDEN });
  });

  it('are found as secret values and hidden from free text (an engine message quoting them)', () => {
    expect(secretValues(payload).sort()).toEqual(['old pass 1', 'open me 22', 'owner 333']);
    const text = redactText('qpdf: open me 22 and owner 333 rejected; set_owner_password=owner 333', secretValues(payload));
    expect(text).not.toMatch(/open me 22|owner 333/);
  });
});
