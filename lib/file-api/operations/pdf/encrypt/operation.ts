/**
 * `pdf/encrypt`: AES-256 with a password to open (`set_password`), one to lift the restrictions
 * (`set_owner_password`), or both, and permissions (qpdf).
 */
import * as z from 'zod';
import { defineOperation } from '../../framework/define.js';
import { opt } from '../../framework/fields.js';
import { inputPassword, password, pdfArguments, pdfToPdf } from '../fields.js';

const name = 'pdf/encrypt';

export const pdfEncrypt = defineOperation({
  name,
  step: 'process',
  inputs: 'required',
  schema: z
    .looseObject({
      ...pdfArguments,
      password: inputPassword,
      set_password: opt(password, null, 'asked for when the output is opened'),
      set_owner_password: opt(password, null, 'lifts the restrictions; without it a random one is set, so the restrictions hold for everyone'),
      allow_print: opt(z.boolean(), true),
      allow_modify: opt(z.boolean(), true),
      allow_extract: opt(z.boolean(), true, 'copying text and images'),
      allow_accessibility: opt(z.boolean(), true, 'accepted; AES-256 (PDF 2.0) always allows text extraction for assistive technology'),
    })
    .superRefine((args, ctx) => {
      if (!args.set_password && !args.set_owner_password) {
        ctx.addIssue({
          code: 'custom',
          path: ['set_password'],
          message: 'give set_password (asked for on opening), set_owner_password (lifts the restrictions), or both',
        });
      }
    }),
  engines: pdfToPdf('qpdf', ['password', 'set_password', 'set_owner_password', 'allow_print', 'allow_modify', 'allow_extract', 'allow_accessibility']),
});
