/** The office family: LibreOffice, which runs in the office container image (Dockerfile). */
import { officeToPdf } from '../../engines/libreoffice.js';
import type { FamilyHandlers } from './types.js';

export const OFFICE_FAMILY: FamilyHandlers = {
  family: 'office',
  engines: {
    convert: { libreoffice: officeToPdf },
  },
};
