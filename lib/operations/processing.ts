/**
 * The implementations of the processing operations that run on engines, by operation name, built
 * from the engine families' handlers (operations/families/): each family's process function
 * (functions/tasks/process-<family>-step.ts) gets only its own; `PROCESSING_IMPLEMENTATIONS` has
 * them all (tests, the engine harness). Their schemas are in processing-catalog.ts.
 */
import { familyImplementations } from './engine-operations.js';
import { CHROMIUM_FAMILY } from './families/chromium.js';
import { IMAGE_FAMILY } from './families/image.js';
import { MEDIA_FAMILY } from './families/media.js';
import { OFFICE_FAMILY } from './families/office.js';
import { PDF_FAMILY } from './families/pdf.js';
import type { FamilyHandlers } from './families/types.js';
import type { Implementation } from './types.js';

export const ALL_FAMILIES: readonly FamilyHandlers[] = [IMAGE_FAMILY, MEDIA_FAMILY, PDF_FAMILY, CHROMIUM_FAMILY, OFFICE_FAMILY];

/** Every engine operation with every family's handlers (and archive). */
export const PROCESSING_IMPLEMENTATIONS: Readonly<Record<string, Implementation>> = familyImplementations(...ALL_FAMILIES);
