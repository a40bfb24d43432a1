/** The office family: LibreOffice and exiftool (on perl), which run in the office container image (Dockerfile). */
import { readMetadata, writeMetadata } from '../../engines/exiftool.js';
import { officeToPdf } from '../../engines/libreoffice.js';
import type { FamilyHandlers } from './types.js';

export const OFFICE_FAMILY: FamilyHandlers = {
  family: 'office',
  engines: {
    convert: { libreoffice: officeToPdf },
    metadata: { exiftool: readMetadata },
    'metadata/write': { exiftool: writeMetadata },
  },
};
