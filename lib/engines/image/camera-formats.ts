/**
 * The phone and camera formats the ImageMagick engine reads (HEIC/HEIF through libheif, camera RAW
 * through LibRaw, both inside @imagemagick/magick-wasm), in lower case. A format is listed only when a
 * file of it decodes in test/integration/camera-fixtures.test.ts: each has a fixture
 * test/fixtures/camera/bars.<format>, written byte by byte by scripts/fixtures/make-camera-fixtures.ts,
 * since no encoder in npm writes these formats.
 */
export const CAMERA_FORMATS: readonly string[] = [
  'heic',
  'heif',
  'dng',
  'cr2',
  'nef',
  'nrw',
  'arw',
  'sr2',
  'pef',
  'srw',
  'orf',
  'erf',
  'mef',
  '3fr',
  'fff',
  'mos',
  'rw2',
  'rwl',
  'raf',
  'mrw',
  'dcr',
  'kdc',
  'iiq',
  'crw',
];

/** The fixture of a listed format, below test/fixtures/camera/. */
export const cameraFixtureName = (format: string): string => `bars.${format}`;
