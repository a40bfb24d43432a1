/**
 * Each format's family, as CloudConvert groups them (discovery's `meta.group`, the counts of
 * `npm run formats`, the start banner's missing families): archive, audio, cad, document, ebook, font,
 * image, presentation, spreadsheet, vector, video. A table of names only: whether a format is offered
 * is the engines' answer (discovery), never this list's. A format not listed here takes formats.ts's
 * group (`other` when it has none).
 */
import { formatGroup, normalizeFormat } from '../../engines/core/formats.js';
import { MARKUP_DOCUMENT_FORMATS } from '../../engines/markup/formats.js';

/** The families, in the order they are reported. */
export const FORMAT_FAMILIES = ['image', 'vector', 'video', 'audio', 'archive', 'font', 'document', 'spreadsheet', 'presentation', 'ebook', 'cad', 'other'] as const;
export type FormatFamily = (typeof FORMAT_FAMILIES)[number];

const words = (text: string) => text.trim().split(/\s+/);

const LISTS: Record<Exclude<FormatFamily, 'other'>, string[]> = {
  image: words(`
    jpg png webp avif tiff gif bmp ico icns cur psd psb tga ppm pgm pbm pnm pam pfm pcx jp2 j2k jpf jpx jpm jxl exr hdr dds
    heic heif qoi sgi rgb xbm xpm xwd wbmp dpx cin fits fts fax mng apng jng pict pct xcf ora miff mtv otb palm pcd
    sun ras viff vicar wpg
    dcx ptif vips xv ff phm pgx
    raw dng cr2 cr3 crw nef nrw arw srf sr2 orf rw2 raf pef srw x3f 3fr dcr kdc mrw mos mef erf iiq rwl
  `),
  vector: words('svg svgz eps ps ai cdr cgm emf wmf sk sk1 vsd vsdx odg otg fodg'),
  video: words(`
    3g2 3gp 3gpp avi flv f4v m2ts mts ts m2t m4v mkv mov mp4 mpeg mpg mpe m1v m2v mxf ogv vob webm wmv asf
    dv dvr rm rmvb swf wtv mjpeg mjpg h264 hevc y4m divx xvid mod cavs nut
  `),
  audio: words(`
    aac ac3 eac3 aif aiff aifc amr awb au snd caf dts flac m4a m4b m4p m4r mka mp2 mp3 oga ogg opus ra spx voc wav weba
    wma wv ape gsm tta mid midi dss
  `),
  archive: words(`
    zip 7z rar tar gz tgz bz bz2 tbz tbz2 xz txz lz lzma lzo tlz z tz zst tzst cab cpio deb rpm dmg iso img jar war apk
    arj lha lzh ace alz arc rz msi pkg xar wim
    tar.gz tar.bz tar.bz2 tar.xz tar.lz tar.lzma tar.lzo tar.z tar.7z tar.zst
    ar
  `),
  font: words('ttf otf woff woff2 eot ttc otc dfont pfb pfa afm ufo'),
  document: words('pdf doc docx docm dot dotx odt ott rtf txt md markdown html htm xhtml abw zabw wpd wps hwp lwp pages tex rst xps oxps djvu'),
  spreadsheet: words('xlsx xls xlsm xlsb xlt xltx ods ots csv tsv numbers et'),
  presentation: words('pptx ppt pptm pps ppsx pot potx odp otp key dps fodp'),
  ebook: words('epub mobi azw azw3 azw4 fb2 lit lrf pdb pml prc rb snb tcr txtz htmlz cbz cbr cbc chm fbz'),
  cad: words('dwg dxf'),
};
// Markup (pandoc): documents, as CloudConvert groups md, rst and tex.
LISTS.document.push(...MARKUP_DOCUMENT_FORMATS);

// Writer and Calc formats LibreOffice reads and writes (lib/engines/office/office-formats.ts) beyond CloudConvert's names.
LISTS.document.push(...words('fodt sxw xml'));
LISTS.spreadsheet.push(...words('fods sxc dif slk'));

const FAMILY_OF = new Map<string, FormatFamily>();
for (const family of FORMAT_FAMILIES) if (family !== 'other') for (const format of LISTS[family]) if (!FAMILY_OF.has(format)) FAMILY_OF.set(format, family);

/** The family of a format (`JPEG` → `image`, `tar.gz` → `archive`); `other` for one no family lists. */
export function formatFamily(format: string | null | undefined): string {
  if (!format) return 'other';
  const name = normalizeFormat(format);
  return FAMILY_OF.get(name) ?? formatGroup(name);
}
