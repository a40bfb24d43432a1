/**
 * What the `command` operation lets FFmpeg and ffprobe be asked (ImageMagick and GraphicsMagick: magick-allowlist.ts): the
 * ALLOWLIST, as data. command-arguments.ts parses the arguments as the tool does (FFmpeg's options with
 * their arities, its filtergraphs with both escaping levels, ffmpeg-graph.ts) and accepts only what is
 * named here; anything else is a 422 naming the argument. Nothing is refused by matching words: what
 * is not listed does not run.
 *
 * Why these: they are what CloudConvert's users run (transcoding with codecs, bitrates and presets,
 * scaling, cropping, padding, trimming, fades, frame rates, thumbnails and contact sheets, GIFs with a
 * palette, overlays of task files, audio extraction, volume and loudness, mixing, synthetic sources),
 * and none of them opens a file, a device, a library or the network by a name in its value. Left out
 * on purpose: every option, format, filter or filter key that names a file (`-filter_script`,
 * `-report`, `-passlogfile`, `-attach`, `-progress`, `textfile=`, `fontfile=`, `stats_file=`…),
 * formats that follow references or write lists (concat, hls, dash, tee, segment, imf…), devices,
 * protocols, codec parameter strings (`-x264-params` takes a stats file), filters that open files or
 * load plugins (movie, amovie, subtitles, sendcmd, frei0r, ladspa, lut3d…) and `drawtext`'s `font`
 * (a fontconfig pattern, which can name a file).
 */

/** How an option's value is checked (command-arguments.ts `VALUE_CHECKS`). */
export type ValueKind =
  | 'int'
  | 'number'
  | 'time'
  | 'size'
  | 'rate'
  | 'aspect'
  | 'name'
  | 'codec'
  | 'format'
  | 'graph'
  | 'map'
  | 'map_metadata'
  | 'metadata'
  | 'flags'
  | 'threads'
  | 'input'
  | 'entries'
  | 'writer'
  | 'streams'
  | 'intervals';

/** One option: its value (none: a flag), and whether it takes a stream specifier (`-c:v`, `-b:a:0`). */
export interface OptionRule {
  value?: ValueKind;
  streams?: true;
}

const flag: OptionRule = {};
const spec = (value: ValueKind): OptionRule => ({ value, streams: true });
const plain = (value: ValueKind): OptionRule => ({ value });

/** ffmpeg's options. `-i` is its input; any other word is an output file. */
export const FFMPEG_OPTIONS: Readonly<Record<string, OptionRule>> = {
  // Global
  y: flag,
  n: flag,
  hide_banner: flag,
  stats: flag,
  nostats: flag,
  nostdin: flag,
  loglevel: plain('name'),
  v: plain('name'),
  filter_complex: plain('graph'),
  lavfi: plain('graph'),
  // Per file
  i: plain('input'),
  f: plain('format'),
  ss: plain('time'),
  sseof: plain('time'),
  t: plain('time'),
  to: plain('time'),
  itsoffset: plain('time'),
  stream_loop: plain('int'),
  loop: plain('int'),
  framerate: plain('rate'),
  shortest: flag,
  map: plain('map'),
  map_metadata: spec('map_metadata'),
  map_chapters: plain('int'),
  metadata: spec('metadata'),
  movflags: plain('flags'),
  update: plain('int'),
  start_number: plain('int'),
  max_muxing_queue_size: plain('int'),
  strict: plain('name'),
  // Per stream
  c: spec('codec'),
  codec: spec('codec'),
  vcodec: plain('codec'),
  acodec: plain('codec'),
  scodec: plain('codec'),
  b: spec('number'),
  maxrate: spec('number'),
  minrate: spec('number'),
  bufsize: spec('number'),
  crf: spec('number'),
  q: spec('number'),
  qscale: spec('number'),
  preset: spec('name'),
  tune: spec('name'),
  profile: spec('name'),
  level: spec('name'),
  pix_fmt: spec('name'),
  sample_fmt: spec('name'),
  r: spec('rate'),
  s: spec('size'),
  aspect: spec('aspect'),
  frames: spec('int'),
  vframes: plain('int'),
  aframes: plain('int'),
  an: flag,
  vn: flag,
  sn: flag,
  dn: flag,
  ac: spec('int'),
  ar: spec('int'),
  g: spec('int'),
  bf: spec('int'),
  threads: spec('threads'),
  compression_level: spec('int'),
  disposition: spec('name'),
  fps_mode: spec('name'),
  vsync: plain('name'),
  vf: plain('graph'),
  af: plain('graph'),
  filter: spec('graph'),
  // libvpx and libaom (WebM) speed settings
  deadline: spec('name'),
  'cpu-used': spec('int'),
  'row-mt': spec('int'),
  'tile-columns': spec('int'),
};

/** ffprobe's options. A word that is no option is its input. */
export const FFPROBE_OPTIONS: Readonly<Record<string, OptionRule>> = {
  hide_banner: flag,
  loglevel: plain('name'),
  v: plain('name'),
  i: plain('input'),
  f: plain('format'),
  of: plain('writer'),
  print_format: plain('writer'),
  show_entries: plain('entries'),
  select_streams: plain('streams'),
  read_intervals: plain('intervals'),
  show_format: flag,
  show_streams: flag,
  show_packets: flag,
  show_frames: flag,
  show_chapters: flag,
  show_programs: flag,
  show_error: flag,
  show_data: flag,
  count_frames: flag,
  count_packets: flag,
  pretty: flag,
  sexagesimal: flag,
  unit: flag,
  prefix: flag,
  byte_binary_prefix: flag,
};

/** ffprobe's output writers (`-of json`, `-of csv=p=0`): they print, and open nothing. */
export const FFPROBE_WRITERS: ReadonlySet<string> = new Set(['default', 'compact', 'csv', 'flat', 'ini', 'json', 'xml']);

const words = (text: string) => new Set(text.trim().split(/\s+/));

/** Raw PCM formats: they read and write samples only. */
const RAW_AUDIO = 'u8 s8 s16le s16be u16le u16be s24le s24be u24le u24be s32le s32be u32le u32be f32le f32be f64le f64be alaw mulaw';

/** `-f` before an output: muxers that write their one file (or, image2, numbered images beside it). */
export const OUTPUT_FORMATS: ReadonlySet<string> = words(
  `mp4 mov ipod 3gp matroska webm avi flv ogg oga opus mp3 wav flac adts ac3 aiff caf wv mpegts mpeg vob gif apng webp mjpeg image2 ` +
    `rawvideo data null srt webvtt ass ffmetadata md5 framemd5 hash framehash ${RAW_AUDIO}`,
);
/** `-f` before an input: demuxers of media files in the task, and lavfi (its "file" is a filtergraph). */
export const INPUT_FORMATS: ReadonlySet<string> = words(
  `lavfi mp4 mov matroska webm avi flv ogg mp3 wav flac aac ac3 aiff caf wv mpegts mpeg gif apng image2 mjpeg h264 hevc rawvideo srt webvtt ass ffmetadata ${RAW_AUDIO}`,
);
/** Output file extensions when no `-f` names the muxer (FFmpeg guesses by extension): those of the formats above. */
export const OUTPUT_EXTENSIONS: ReadonlySet<string> = words(
  'mp4 m4v m4a m4b mov 3gp mkv mka webm avi flv ogg oga ogv opus mp3 wav flac aac adts ac3 aiff aif caf wv ts m2ts mts mpg mpeg vob ' +
    'gif apng png jpg jpeg bmp tif tiff webp y4m yuv rgb srt vtt ass md5',
);

/** Codecs (`-c`, `-c:v`…): encoders and decoders of media; `copy` keeps the stream. pcm_* are allowed too. */
export const CODECS: ReadonlySet<string> = words(
  'copy libx264 libx264rgb h264 libx265 hevc mpeg4 libxvid mpeg2video mpeg1video mjpeg png apng gif bmp tiff libwebp libwebp_anim webp ' +
    'libvpx libvpx-vp9 vp8 vp9 libaom-av1 libsvtav1 libdav1d av1 prores prores_ks dnxhd rawvideo ffv1 huffyuv utvideo theora libtheora ' +
    'aac libfdk_aac libmp3lame mp3 mp2 libopus opus libvorbis vorbis flac alac ac3 eac3 wavpack libtwolame ' +
    'mov_text srt subrip webvtt ass ssa text',
);
export const CODEC_PATTERN = /^pcm_[a-z0-9]+$/;

/**
 * Filters, with their options: `slots` are the options a value without a key sets, in FFmpeg's order
 * (`scale=640:-2` sets w, then h; an alias after `|`), `keys` the further options a `key=value` may
 * set. Every filter also takes `enable` (its timeline). What is not listed is refused, so a filter's
 * option that names a file (drawtext's fontfile and textfile, psnr's stats_file…) never runs.
 */
export interface FilterRule {
  slots?: readonly string[];
  keys?: readonly string[];
  /** A source: it has no input and makes frames or samples of its own (the sandbox refuses these). */
  source?: true;
}

const f = (slots: string, keys = ''): FilterRule => ({ slots: slots ? slots.split(' ') : [], keys: keys ? keys.split(' ') : [] });
const source = (slots: string): FilterRule => ({ ...f(slots), source: true });

export const FILTERS: Readonly<Record<string, FilterRule>> = {
  // Geometry
  scale: f('w|width h|height flags interl', 'force_original_aspect_ratio force_divisible_by eval in_range out_range'),
  crop: f('out_w|w out_h|h x y keep_aspect exact'),
  pad: f('width|w height|h x y color', 'eval aspect'),
  rotate: f('angle|a out_w|ow out_h|oh fillcolor|c bilinear'),
  transpose: f('dir passthrough'),
  hflip: f(''),
  vflip: f(''),
  setsar: f('sar|ratio|r max'),
  setdar: f('dar|ratio|r max'),
  // Time and frames
  fps: f('fps start_time round eof_action'),
  setpts: f('expr'),
  asetpts: f('expr'),
  trim: f('start|starti end|endi start_pts end_pts duration|durationi', 'start_frame end_frame'),
  atrim: f('start|starti end|endi start_pts end_pts duration|durationi', 'start_sample end_sample'),
  select: f('expr|e outputs|n'),
  aselect: f('expr|e outputs|n'),
  thumbnail: f('n'),
  tile: f('layout nb_frames margin padding color overlap init_padding'),
  yadif: f('mode parity deint'),
  bwdif: f('mode parity deint'),
  fade: f('type|t start_frame|s nb_frames|n', 'alpha start_time st duration d color c'),
  afade: f('type|t start_sample|ss nb_samples|ns', 'start_time st duration d curve c'),
  concat: f('', 'n v a unsafe'),
  // Colour and look
  format: f('pix_fmts'),
  aformat: f('sample_fmts|f sample_rates|r channel_layouts|cl'),
  eq: f('contrast brightness saturation gamma gamma_r gamma_g gamma_b gamma_weight eval'),
  hue: f('h s H b'),
  colorchannelmixer: f('rr rg rb ra gr gg gb ga br bg bb ba ar ag ab aa'),
  unsharp: f('luma_msize_x|lx luma_msize_y|ly luma_amount|la chroma_msize_x|cx chroma_msize_y|cy chroma_amount|ca'),
  boxblur: f('luma_radius|lr luma_power|lp chroma_radius|cr chroma_power|cp alpha_radius|ar alpha_power|ap'),
  gblur: f('sigma steps planes'),
  drawbox: f('x y width|w height|h color|c thickness|t replace'),
  // Text: `text=` only; fontfile (its first slot), textfile, font and reload are refused.
  drawtext: f(
    '',
    'text fontcolor fontcolor_expr boxcolor bordercolor shadowcolor box boxborderw line_spacing fontsize x y shadowx shadowy borderw tabsize ' +
      'expansion timecode tc24hmax timecode_rate r rate alpha fix_bounds start_number',
  ),
  // Palettes (GIF)
  palettegen: f('max_colors reserve_transparent transparency_color stats_mode'),
  paletteuse: f('dither bayer_scale diff_mode new alpha_threshold'),
  // Several streams
  overlay: f('x y', 'eof_action eval shortest format repeatlast alpha'),
  split: f('outputs'),
  asplit: f('outputs'),
  hstack: f('inputs shortest'),
  vstack: f('inputs shortest'),
  amix: f('inputs duration dropout_transition weights normalize'),
  amerge: f('inputs'),
  null: f(''),
  anull: f(''),
  // Audio
  volume: f('volume precision eval replaygain replaygain_preamp replaygain_noclip'),
  atempo: f('tempo'),
  aresample: f('sample_rate'),
  loudnorm: f('', 'i I lra LRA tp TP measured_i measured_I measured_lra measured_LRA measured_tp measured_TP measured_thresh offset linear dual_mono print_format'),
  pan: f('args'),
  highpass: f('frequency|f width_type|t width|w poles|p'),
  lowpass: f('frequency|f width_type|t width|w poles|p'),
  dynaudnorm: f('framelen|f gausssize|g peak|p maxgain|m'),
  volumedetect: f(''),
  // Sources (lavfi inputs, or inside -filter_complex)
  color: source('color|c size|s rate|r duration|d sar'),
  nullsrc: source('size|s rate|r duration|d sar'),
  testsrc: source('size|s rate|r duration|d sar decimals|n'),
  testsrc2: source('size|s rate|r duration|d sar alpha'),
  smptebars: source('size|s rate|r duration|d sar'),
  sine: source('frequency|f beep_factor|b sample_rate|r duration|d samples_per_frame'),
  anullsrc: source('channel_layout|cl sample_rate|r nb_samples|n duration|d'),
};

/** Options every filter has (AVFilterContext's): its timeline. */
export const FILTER_COMMON_KEYS: readonly string[] = ['enable'];
