/**
 * The metadata tags `metadata/write` may write: an allowlist of real, descriptive metadata (EXIF,
 * IPTC, XMP, PDF Info, PNG text, QuickTime), optionally qualified by one group from an allowlist of
 * metadata groups (`XMP-dc:Title`, `IFD0:Artist`, `PDF:Author`).
 *
 * Why an allowlist: exiftool also has pseudo-tags that act on the file system or read other files
 * (`FileName`, `Directory`, `HardLink`, `SymLink`, `TestName`, `FilePermissions`, `Geotag`,
 * `Geosync`…), group names that reach them (`File:`, `System:`), whole metadata blocks written from
 * binary data (`EXIF`, `XMP`, `ThumbnailImage`), and argument syntax (`-`, `=`, `#`, `<`). None of
 * those can be named here: a name is `[Group:]Tag` with both parts from the lists below (compared
 * case-insensitively, as exiftool does), nothing else.
 */

/** What metadata/write's handlers read of a task's arguments: the tags, checked against the allowlist. */
export interface MetadataWriteArgs {
  metadata: Record<string, string | number>;
}

/** Groups a tag may be qualified with (exiftool family 0 and 1 names of metadata, never File or System). */
export const METADATA_GROUPS = [
  'EXIF',
  'IFD0',
  'ExifIFD',
  'GPS',
  'IPTC',
  'XMP',
  'XMP-dc',
  'XMP-xmp',
  'XMP-xmpRights',
  'XMP-xmpMM',
  'XMP-photoshop',
  'XMP-iptcCore',
  'XMP-iptcExt',
  'XMP-pdf',
  'XMP-tiff',
  'XMP-exif',
  'XMP-exifEX',
  'XMP-lr',
  'XMP-plus',
  'PDF',
  'PNG',
  'QuickTime',
  'ItemList',
  'UserData',
  'Keys',
] as const;

/** Tag names, by the standard that defines them (several exist in more than one). */
const TAGS_BY_STANDARD = {
  exif: [
    'ImageDescription', 'Make', 'Model', 'Orientation', 'XResolution', 'YResolution', 'ResolutionUnit', 'Software', 'ModifyDate',
    'Artist', 'Copyright', 'HostComputer', 'DocumentName', 'PageName', 'DateTimeOriginal', 'CreateDate', 'OffsetTime',
    'OffsetTimeOriginal', 'OffsetTimeDigitized', 'SubSecTime', 'SubSecTimeOriginal', 'SubSecTimeDigitized', 'UserComment',
    'ExposureTime', 'FNumber', 'ExposureProgram', 'ISO', 'ExposureCompensation', 'MaxApertureValue', 'MeteringMode', 'LightSource',
    'Flash', 'FocalLength', 'FocalLengthIn35mmFormat', 'LensMake', 'LensModel', 'LensSerialNumber', 'SerialNumber', 'OwnerName',
    'ImageUniqueID', 'ColorSpace', 'WhiteBalance', 'SceneCaptureType', 'Contrast', 'Saturation', 'Sharpness', 'DigitalZoomRatio',
    'XPTitle', 'XPComment', 'XPAuthor', 'XPKeywords', 'XPSubject', 'Rating', 'RatingPercent',
    'GPSLatitude', 'GPSLatitudeRef', 'GPSLongitude', 'GPSLongitudeRef', 'GPSAltitude', 'GPSAltitudeRef', 'GPSTimeStamp',
    'GPSDateStamp', 'GPSImgDirection', 'GPSImgDirectionRef', 'GPSSpeed', 'GPSSpeedRef', 'GPSMapDatum', 'GPSAreaInformation',
  ],
  iptc: [
    'ObjectName', 'Urgency', 'Category', 'SupplementalCategories', 'Keywords', 'SpecialInstructions', 'DateCreated', 'TimeCreated',
    'DigitalCreationDate', 'DigitalCreationTime', 'By-line', 'By-lineTitle', 'City', 'Sub-location', 'Province-State',
    'Country-PrimaryLocationCode', 'Country-PrimaryLocationName', 'OriginalTransmissionReference', 'Headline', 'Credit', 'Source',
    'CopyrightNotice', 'Contact', 'Caption-Abstract', 'Writer-Editor', 'OriginatingProgram', 'ProgramVersion',
  ],
  xmp: [
    // dc
    'Title', 'Creator', 'Description', 'Subject', 'Rights', 'Publisher', 'Contributor', 'Date', 'Language', 'Identifier', 'Coverage',
    'Relation', 'Type',
    // xmp
    'CreatorTool', 'MetadataDate', 'Label', 'Nickname',
    // xmpRights
    'Marked', 'Owner', 'UsageTerms', 'WebStatement', 'Certificate',
    // xmpMM
    'DocumentID', 'InstanceID', 'OriginalDocumentID',
    // photoshop
    'AuthorsPosition', 'CaptionWriter', 'Country', 'Instructions', 'State', 'TransmissionReference', 'ICCProfileName',
    // iptcCore and iptcExt
    'CountryCode', 'IntellectualGenre', 'Location', 'Scene', 'SubjectCode', 'CreatorWorkEmail', 'CreatorWorkURL', 'CreatorWorkTelephone',
    'CreatorCity', 'CreatorCountry', 'PersonInImage', 'Event', 'OrganisationInImageName', 'DigitalSourceType',
    // lr
    'HierarchicalSubject',
    // plus
    'CopyrightOwnerName', 'LicensorName', 'ImageCreatorName',
  ],
  pdf: ['Author', 'Producer', 'Trapped', 'PDFVersion'],
  png: ['Comment', 'Disclaimer', 'CreationTime'],
  quicktime: ['Album', 'AlbumArtist', 'Composer', 'Genre', 'Year', 'Encoder', 'Performer', 'Director', 'ContentCreateDate', 'Grouping', 'Lyrics'],
} as const;

export const METADATA_TAGS: readonly string[] = [...new Set(Object.values(TAGS_BY_STANDARD).flat())].sort();

/**
 * exiftool compares names ignoring ASCII case only; JavaScript's toLowerCase also folds other letters
 * into ASCII ones (the Kelvin sign U+212A becomes `k`), so names are folded by hand: A-Z only.
 */
const foldCase = (s: string) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
const GROUPS = new Map(METADATA_GROUPS.map((g) => [foldCase(g), g]));
const TAGS = new Map(METADATA_TAGS.map((t) => [foldCase(t), t]));

/** Whether `name` is `Tag` or `Group:Tag` with both parts on the allowlists (ignoring ASCII case, nothing else). */
export function isWritableTag(name: string): boolean {
  const parts = name.split(':');
  if (parts.length > 2) return false;
  const tag = parts.pop()!;
  const group = parts[0];
  if (group !== undefined && !GROUPS.has(foldCase(group))) return false;
  return TAGS.has(foldCase(tag));
}

/** Why a tag name is refused, naming it and the rule (for the 422). */
export function tagProblem(name: string): string | undefined {
  if (isWritableTag(name)) return undefined;
  const shown = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
  return (
    `${shown} is not a metadata tag that can be written: tags are EXIF, IPTC, XMP, PDF, PNG and QuickTime fields such as ` +
    `Artist, Title, Keywords or XMP-dc:Creator, optionally after one of the groups ${METADATA_GROUPS.join(', ')}.`
  );
}

/** Longest value written into one tag. */
export const MAX_TAG_VALUE_LENGTH = 10_000;

/** Why a value is refused (control characters could end exiftool's argument line), if it is. */
export function valueProblem(name: string, value: string | number): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `the value of ${name} must be a finite number.`;
  if (value.length > MAX_TAG_VALUE_LENGTH) return `the value of ${name} is longer than ${MAX_TAG_VALUE_LENGTH} characters.`;
  // C0 controls (line breaks included) and DEL; tabs are kept.
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return `the value of ${name} must be one line of text without control characters.`;
  }
  return undefined;
}

/** Discovery's description of the `metadata` argument. */
export const METADATA_DESCRIPTION =
  `tag name → value (text of one line, up to ${MAX_TAG_VALUE_LENGTH} characters, or a number). Tags are real metadata: EXIF, IPTC, XMP, PDF Info, PNG and ` +
  `QuickTime fields (${METADATA_TAGS.join(', ')}), optionally after one group (${METADATA_GROUPS.join(', ')}), e.g. XMP-dc:Title or PDF:Author. ` +
  'File-system pseudo-tags (FileName, Directory, HardLink, SymLink, TestName, FilePermissions…), File: and System: groups and tags that read ' +
  'other files (Geotag…) are refused.';
