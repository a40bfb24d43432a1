/**
 * `archive/extract`: an archive's files, one output file per entry, each in its folder (`dir`), on
 * 7-Zip in WebAssembly (`archivetool`, CloudConvert's name for its archive engine). Listed before
 * anything is extracted: bombs, entries named out of their folder and links out of the archive are
 * refused; links inside it are left out.
 */
import * as z from 'zod';
import { ARCHIVE_INPUT_FORMATS } from '../../../../engines/archive/formats.js';
import { defineOperation } from '../../framework/define.js';
import { common, format } from '../../framework/fields.js';
import { inputPassword } from '../../pdf/fields.js';

export const archiveExtract = defineOperation({
  name: 'archive/extract',
  step: 'process',
  inputs: 'required',
  // CloudConvert's fields: the archive and its password; each entry keeps its own name.
  schema: z.looseObject({ ...common, input_format: format.optional(), password: inputPassword }),
  engines: {
    mode: 'each',
    outputFormat: () => undefined,
    order: ['archivetool'],
    capabilities: { archivetool: [{ inputs: ARCHIVE_INPUT_FORMATS, outputs: null, options: ['password'] }] },
  },
});
