/**
 * The audio and video formats FFmpeg converts here, as data: the demuxer each input is opened with,
 * and for each output its muxer, its usual codecs, the codecs it can hold, and what its codecs accept
 * (sample rates, channels). The engine (ffmpeg.ts), the convert operation's capabilities and
 * validation, and the detection of what an installed build writes (media-builds.ts) all read this table.
 *
 * No imports: the operation definitions load it, and lib/engines/core/formats.ts may too.
 */

export type MediaKind = 'video' | 'audio';

/** An output format: how FFmpeg writes it. Codecs are this API's names (`VIDEO_ENCODERS`, `AUDIO_ENCODERS`). */
export interface MediaOutput {
  kind: MediaKind;
  muxer: string;
  /** The usual codecs, used when the request names none. */
  video?: string;
  audio: string;
  /** The codecs the container holds (`copy` is always allowed; `none` too for an audio track of a video). */
  videoCodecs?: readonly string[];
  audioCodecs: readonly string[];
  /** Output options the format needs (after the codecs). */
  args?: readonly string[];
  /** The PCM sample layout of this container (`pcm`). */
  pcm?: string;
  /** The only sample rates or frame rates the format takes (`audio_frequency`, `fps`), the default first. */
  rates?: readonly number[];
  frameRates?: readonly number[];
}

const MP4_VIDEO = ['x264', 'h264', 'x265', 'h265', 'mpeg4', 'av1', 'vp9'];
const MP4_AUDIO = ['aac', 'mp3', 'ac3', 'alac'];
const MKV_VIDEO = ['x264', 'h264', 'x265', 'h265', 'vp8', 'vp9', 'av1', 'mpeg4', 'mpeg2', 'theora'];
const MKV_AUDIO = ['aac', 'mp3', 'opus', 'vorbis', 'flac', 'ac3', 'pcm', 'alac', 'mp2', 'wavpack'];
const FASTSTART = ['-movflags', '+faststart'];
const H264 = ['x264', 'h264'];

/** Video outputs (each also carries its sound). */
const VIDEO_OUTPUTS: Record<string, MediaOutput> = {
  mp4: { kind: 'video', muxer: 'mp4', video: 'h264', audio: 'aac', videoCodecs: MP4_VIDEO, audioCodecs: MP4_AUDIO, args: FASTSTART },
  m4v: { kind: 'video', muxer: 'mp4', video: 'h264', audio: 'aac', videoCodecs: MP4_VIDEO, audioCodecs: MP4_AUDIO, args: FASTSTART },
  mov: { kind: 'video', muxer: 'mov', video: 'h264', audio: 'aac', videoCodecs: [...MP4_VIDEO, 'mpeg2'], audioCodecs: [...MP4_AUDIO, 'pcm'], args: FASTSTART, pcm: 'pcm_s16le' },
  mkv: { kind: 'video', muxer: 'matroska', video: 'h264', audio: 'aac', videoCodecs: MKV_VIDEO, audioCodecs: MKV_AUDIO },
  webm: { kind: 'video', muxer: 'webm', video: 'vp9', audio: 'opus', videoCodecs: ['vp8', 'vp9', 'av1'], audioCodecs: ['opus', 'vorbis'] },
  avi: { kind: 'video', muxer: 'avi', video: 'mpeg4', audio: 'mp3', videoCodecs: ['mpeg4', 'x264', 'h264', 'mpeg2'], audioCodecs: ['mp3', 'ac3', 'pcm', 'mp2'] },
  flv: { kind: 'video', muxer: 'flv', video: 'h264', audio: 'aac', videoCodecs: H264, audioCodecs: ['aac', 'mp3'] },
  f4v: { kind: 'video', muxer: 'f4v', video: 'h264', audio: 'aac', videoCodecs: H264, audioCodecs: ['aac', 'mp3'] },
  wmv: { kind: 'video', muxer: 'asf', video: 'wmv2', audio: 'wma', videoCodecs: ['wmv2'], audioCodecs: ['wma'] },
  asf: { kind: 'video', muxer: 'asf', video: 'wmv2', audio: 'wma', videoCodecs: ['wmv2'], audioCodecs: ['wma'] },
  '3gp': { kind: 'video', muxer: '3gp', video: 'h264', audio: 'aac', videoCodecs: [...H264, 'mpeg4'], audioCodecs: ['aac', 'amr'] },
  '3g2': { kind: 'video', muxer: '3g2', video: 'h264', audio: 'aac', videoCodecs: [...H264, 'mpeg4'], audioCodecs: ['aac', 'amr'] },
  mpeg: { kind: 'video', muxer: 'mpeg', video: 'mpeg2', audio: 'mp2', videoCodecs: ['mpeg2', 'mpeg1'], audioCodecs: ['mp2', 'mp3', 'ac3'] },
  mpg: { kind: 'video', muxer: 'mpeg', video: 'mpeg2', audio: 'mp2', videoCodecs: ['mpeg2', 'mpeg1'], audioCodecs: ['mp2', 'mp3', 'ac3'] },
  vob: { kind: 'video', muxer: 'vob', video: 'mpeg2', audio: 'ac3', videoCodecs: ['mpeg2'], audioCodecs: ['ac3', 'mp2'] },
  ts: { kind: 'video', muxer: 'mpegts', video: 'h264', audio: 'aac', videoCodecs: ['x264', 'h264', 'x265', 'h265', 'mpeg2'], audioCodecs: ['aac', 'mp3', 'ac3', 'mp2'] },
  // The BDAV form (192-byte packets) of AVCHD cameras and Blu-ray.
  m2ts: { kind: 'video', muxer: 'mpegts', video: 'h264', audio: 'aac', videoCodecs: ['x264', 'h264', 'mpeg2'], audioCodecs: ['aac', 'ac3', 'mp2'], args: ['-mpegts_m2ts_mode', '1'] },
  mts: { kind: 'video', muxer: 'mpegts', video: 'h264', audio: 'aac', videoCodecs: ['x264', 'h264', 'mpeg2'], audioCodecs: ['aac', 'ac3', 'mp2'], args: ['-mpegts_m2ts_mode', '1'] },
  ogv: { kind: 'video', muxer: 'ogg', video: 'theora', audio: 'vorbis', videoCodecs: ['theora'], audioCodecs: ['vorbis', 'opus', 'flac'] },
  // MXF as broadcasters exchange it: MPEG-2 at a standard frame rate, 48 kHz PCM.
  mxf: { kind: 'video', muxer: 'mxf', video: 'mpeg2', audio: 'pcm', videoCodecs: ['mpeg2'], audioCodecs: ['pcm'], rates: [48000], frameRates: [25, 24, 30, 50, 60] },
  '3gpp': { kind: 'video', muxer: '3gp', video: 'h264', audio: 'aac', videoCodecs: [...H264, 'mpeg4'], audioCodecs: ['aac', 'amr'] },
  // The MPEG-2 program streams of JVC and Panasonic camcorders.
  mod: { kind: 'video', muxer: 'mpeg', video: 'mpeg2', audio: 'mp2', videoCodecs: ['mpeg2', 'mpeg1'], audioCodecs: ['mp2', 'mp3', 'ac3'] },
  // AVI with MPEG-4 Part 2 under the FourCC that players of those names look for.
  divx: { kind: 'video', muxer: 'avi', video: 'mpeg4', audio: 'mp3', videoCodecs: ['mpeg4'], audioCodecs: ['mp3', 'ac3', 'mp2'], args: ['-vtag', 'DIVX'] },
  xvid: { kind: 'video', muxer: 'avi', video: 'mpeg4', audio: 'mp3', videoCodecs: ['mpeg4'], audioCodecs: ['mp3', 'ac3', 'mp2'], args: ['-vtag', 'XVID'] },
  // RealMedia as FFmpeg writes it (RealVideo 1/2, AC-3 sound); RV30/40 have no encoder.
  rm: { kind: 'video', muxer: 'rm', video: 'rv20', audio: 'ac3', videoCodecs: ['rv20', 'rv10'], audioCodecs: ['ac3'] },
  // Flash: Sorenson H.263 and MP3 at the rates SWF declares.
  swf: { kind: 'video', muxer: 'swf', video: 'flv1', audio: 'mp3', videoCodecs: ['flv1'], audioCodecs: ['mp3'], rates: [44100, 22050, 11025] },
  mpe: { kind: 'video', muxer: 'mpeg', video: 'mpeg2', audio: 'mp2', videoCodecs: ['mpeg2', 'mpeg1'], audioCodecs: ['mp2', 'mp3', 'ac3'] },
  m2t: { kind: 'video', muxer: 'mpegts', video: 'h264', audio: 'aac', videoCodecs: ['x264', 'h264', 'x265', 'h265', 'mpeg2'], audioCodecs: ['aac', 'mp3', 'ac3', 'mp2'] },
};

/** Audio outputs: video inputs give their sound. */
const AUDIO_OUTPUTS: Record<string, MediaOutput> = {
  mp3: { kind: 'audio', muxer: 'mp3', audio: 'mp3', audioCodecs: ['mp3'] },
  wav: { kind: 'audio', muxer: 'wav', audio: 'pcm', audioCodecs: ['pcm'] },
  ogg: { kind: 'audio', muxer: 'ogg', audio: 'vorbis', audioCodecs: ['vorbis', 'opus', 'flac'] },
  opus: { kind: 'audio', muxer: 'opus', audio: 'opus', audioCodecs: ['opus'] },
  m4a: { kind: 'audio', muxer: 'ipod', audio: 'aac', audioCodecs: ['aac', 'alac'], args: FASTSTART },
  m4b: { kind: 'audio', muxer: 'ipod', audio: 'aac', audioCodecs: ['aac', 'alac'], args: FASTSTART },
  flac: { kind: 'audio', muxer: 'flac', audio: 'flac', audioCodecs: ['flac'] },
  aac: { kind: 'audio', muxer: 'adts', audio: 'aac', audioCodecs: ['aac'] },
  ac3: { kind: 'audio', muxer: 'ac3', audio: 'ac3', audioCodecs: ['ac3'] },
  aiff: { kind: 'audio', muxer: 'aiff', audio: 'pcm', audioCodecs: ['pcm'], pcm: 'pcm_s16be' },
  aif: { kind: 'audio', muxer: 'aiff', audio: 'pcm', audioCodecs: ['pcm'], pcm: 'pcm_s16be' },
  amr: { kind: 'audio', muxer: 'amr', audio: 'amr', audioCodecs: ['amr'] },
  wma: { kind: 'audio', muxer: 'asf', audio: 'wma', audioCodecs: ['wma'] },
  caf: { kind: 'audio', muxer: 'caf', audio: 'pcm', audioCodecs: ['pcm', 'alac'] },
  mp2: { kind: 'audio', muxer: 'mp2', audio: 'mp2', audioCodecs: ['mp2'] },
  au: { kind: 'audio', muxer: 'au', audio: 'pcm', audioCodecs: ['pcm'], pcm: 'pcm_s16be' },
  mka: { kind: 'audio', muxer: 'matroska', audio: 'aac', audioCodecs: MKV_AUDIO },
  weba: { kind: 'audio', muxer: 'webm', audio: 'opus', audioCodecs: ['opus', 'vorbis'] },
  wv: { kind: 'audio', muxer: 'wv', audio: 'wavpack', audioCodecs: ['wavpack'] },
  oga: { kind: 'audio', muxer: 'ogg', audio: 'vorbis', audioCodecs: ['vorbis', 'opus', 'flac'] },
  // An iPhone ringtone: an M4A by another name.
  m4r: { kind: 'audio', muxer: 'ipod', audio: 'aac', audioCodecs: ['aac', 'alac'], args: FASTSTART },
  // AIFF-C, here with little-endian samples ('sowt'), as macOS writes it.
  aifc: { kind: 'audio', muxer: 'aiff', audio: 'pcm', audioCodecs: ['pcm'], pcm: 'pcm_s16le' },
  w64: { kind: 'audio', muxer: 'w64', audio: 'pcm', audioCodecs: ['pcm'] },
  tta: { kind: 'audio', muxer: 'tta', audio: 'tta', audioCodecs: ['tta'] },
  eac3: { kind: 'audio', muxer: 'eac3', audio: 'eac3', audioCodecs: ['eac3'] },
  spx: { kind: 'audio', muxer: 'spx', audio: 'speex', audioCodecs: ['speex'], rates: [16000, 8000, 32000] },
  // RealAudio: the RealMedia container with sound only.
  ra: { kind: 'audio', muxer: 'rm', audio: 'ac3', audioCodecs: ['ac3'] },
  snd: { kind: 'audio', muxer: 'au', audio: 'pcm', audioCodecs: ['pcm'], pcm: 'pcm_s16be' },
};

export const MEDIA_OUTPUTS: Readonly<Record<string, MediaOutput>> = { ...VIDEO_OUTPUTS, ...AUDIO_OUTPUTS };

/**
 * The encoders of each codec name, the first one a build has wins (AV1: SVT-AV1 where the build has
 * it, else libaom, which the static 4.1 build has). x264/x265 are CloudConvert's names.
 */
export const VIDEO_ENCODERS: Readonly<Record<string, readonly string[]>> = {
  x264: ['libx264'],
  h264: ['libx264'],
  x265: ['libx265'],
  h265: ['libx265'],
  vp8: ['libvpx'],
  vp9: ['libvpx-vp9'],
  av1: ['libsvtav1', 'libaom-av1'],
  mpeg4: ['mpeg4'],
  mpeg2: ['mpeg2video'],
  mpeg1: ['mpeg1video'],
  wmv2: ['wmv2'],
  theora: ['libtheora'],
  rv10: ['rv10'],
  rv20: ['rv20'],
  flv1: ['flv'],
};

export const AUDIO_ENCODERS: Readonly<Record<string, readonly string[]>> = {
  aac: ['aac'],
  mp3: ['libmp3lame'],
  opus: ['libopus'],
  vorbis: ['libvorbis'],
  flac: ['flac'],
  pcm: ['pcm_s16le'],
  ac3: ['ac3'],
  wma: ['wmav2'],
  amr: ['libopencore_amrnb'],
  mp2: ['mp2'],
  alac: ['alac'],
  wavpack: ['wavpack'],
  tta: ['tta'],
  eac3: ['eac3'],
  speex: ['libspeex'],
};

/** `video_codec` and `audio_codec` values. */
export const VIDEO_CODEC_NAMES = ['copy', ...Object.keys(VIDEO_ENCODERS)] as [string, ...string[]];
export const AUDIO_CODEC_NAMES = ['copy', 'none', ...Object.keys(AUDIO_ENCODERS)] as [string, ...string[]];

/** What an audio codec accepts, where it does not take any rate or up to 8 channels. */
const AUDIO_LIMITS: Readonly<Record<string, { rates?: readonly number[]; channels?: number }>> = {
  mp3: { rates: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000], channels: 2 },
  mp2: { rates: [16000, 22050, 24000, 32000, 44100, 48000], channels: 2 },
  opus: { rates: [8000, 12000, 16000, 24000, 48000] },
  ac3: { rates: [32000, 44100, 48000], channels: 6 },
  eac3: { rates: [32000, 44100, 48000], channels: 6 },
  speex: { rates: [8000, 16000, 32000], channels: 2 },
  wma: { rates: [8000, 11025, 16000, 22050, 32000, 44100, 48000], channels: 2 },
  amr: { rates: [8000], channels: 1 },
  aac: { rates: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000] },
};
export const audioLimits = (codec: string) => AUDIO_LIMITS[codec] ?? {};

/** Arguments an audio codec needs whatever is asked (AMR-NB is 8 kHz mono only). */
export const AUDIO_CODEC_ARGS: Readonly<Record<string, readonly string[]>> = { amr: ['-ar', '8000', '-ac', '1'] };

/**
 * The demuxer each input format is opened with (pinned: nothing is read as another format, see
 * ffmpeg.ts). `gif`: animated GIFs (sharp keeps the GIF-to-image pairs).
 */
export const DEMUXERS: Readonly<Record<string, string>> = {
  mp4: 'mov', m4v: 'mov', mov: 'mov', '3gp': 'mov', '3g2': 'mov', f4v: 'mov', m4a: 'mov', m4b: 'mov',
  mkv: 'matroska', webm: 'matroska', mka: 'matroska', weba: 'matroska',
  avi: 'avi', flv: 'flv', wmv: 'asf', asf: 'asf', wma: 'asf',
  mpeg: 'mpeg', mpg: 'mpeg', vob: 'mpeg', ts: 'mpegts', m2ts: 'mpegts', mts: 'mpegts',
  ogv: 'ogg', ogg: 'ogg', opus: 'ogg', mxf: 'mxf', dv: 'dv', gif: 'gif',
  mp3: 'mp3', mp2: 'mp3', wav: 'wav', flac: 'flac', aac: 'aac', ac3: 'ac3', aiff: 'aiff', aif: 'aiff',
  amr: 'amr', caf: 'caf', au: 'au', wv: 'wv',
  '3gpp': 'mov', mod: 'mpeg', divx: 'avi', xvid: 'avi', rm: 'rm', rmvb: 'rm', swf: 'swf', nut: 'nut', wtv: 'wtv',
  y4m: 'yuv4mpegpipe', ivf: 'ivf', m2v: 'mpegvideo', h264: 'h264', hevc: 'hevc',
  m1v: 'mpegvideo', mjpeg: 'mjpeg', mjpg: 'mjpeg', mpe: 'mpeg', m2t: 'mpegts', snd: 'au', awb: 'amr',
  oga: 'ogg', m4r: 'mov', aifc: 'aiff', w64: 'w64', tta: 'tta', eac3: 'eac3', dts: 'dts', spx: 'ogg', ra: 'rm', voc: 'voc', mmf: 'mmf',
  png: 'png_pipe',
};

export const VIDEO_INPUTS = ['mp4', 'm4v', 'mov', '3gp', '3g2', 'f4v', 'mkv', 'webm', 'avi', 'flv', 'wmv', 'asf', 'mpeg', 'mpg', 'vob', 'ts', 'm2ts', 'mts', 'ogv', 'mxf', 'dv', 'gif',
  '3gpp', 'mod', 'divx', 'xvid', 'rm', 'rmvb', 'swf', 'nut', 'wtv', 'y4m', 'ivf', 'm2v', 'h264', 'hevc',
  'm1v', 'mjpeg', 'mjpg', 'mpe', 'm2t'] as const;
export const AUDIO_INPUTS = ['mp3', 'mp2', 'wav', 'flac', 'ogg', 'opus', 'm4a', 'm4b', 'aac', 'ac3', 'aiff', 'aif', 'amr', 'wma', 'caf', 'au', 'mka', 'weba', 'wv',
  'oga', 'm4r', 'aifc', 'w64', 'tta', 'eac3', 'dts', 'spx', 'ra', 'voc', 'mmf', 'snd', 'awb'] as const;
export const VIDEO_OUTPUT_FORMATS = Object.keys(VIDEO_OUTPUTS);
export const AUDIO_OUTPUT_FORMATS = Object.keys(AUDIO_OUTPUTS);

/** The convert options for video outputs, and for audio outputs (CloudConvert's names). */
export const AUDIO_OPTION_NAMES = ['audio_codec', 'audio_bitrate', 'audio_channels', 'audio_frequency', 'trim_start', 'trim_end'] as const;
export const VIDEO_OPTION_NAMES = ['video_codec', 'crf', 'preset', 'video_bitrate', 'width', 'height', 'fit', 'fps', ...AUDIO_OPTION_NAMES] as const;
/** Options of the video that an audio output cannot take. */
export const VIDEO_ONLY_OPTIONS = ['video_codec', 'crf', 'preset', 'video_bitrate', 'fps'] as const;

/** The feature of the ffmpeg engine that says an installed build writes `format` (its muxer and usual encoders). */
export const writesFeature = (format: string) => `writes:${format}`;

/**
 * The muxer and encoders a build needs to write `format` with its usual codecs: each entry a list of
 * alternatives (one of them must be there).
 */
export function needs(format: string): { muxer: string; encoders: Array<readonly string[]> } {
  const spec = MEDIA_OUTPUTS[format]!;
  const encoders: Array<readonly string[]> = [];
  if (spec.video) encoders.push(VIDEO_ENCODERS[spec.video]!);
  encoders.push(spec.audio === 'pcm' ? [spec.pcm ?? 'pcm_s16le'] : AUDIO_ENCODERS[spec.audio]!);
  return { muxer: spec.muxer, encoders };
}

/** GIF (animated, from a video) is written by the `gif` muxer and encoder. */
export const GIF_NEEDS = { muxer: 'gif', encoders: [['gif']] as Array<readonly string[]> };

/**
 * What the static FFmpeg of @ffmpeg-installer/linux-x64 (4.1) writes: the deployed media function's
 * features (families.ts PACKAGED). test/integration/media-formats.test.ts asks that build.
 */
export const SHIPPED_FFMPEG_WRITES = [...VIDEO_OUTPUT_FORMATS, ...AUDIO_OUTPUT_FORMATS, 'gif'] as const;

const NOT_GIF = VIDEO_INPUTS.filter((f) => f !== 'gif');
/** The ffmpeg engine's convert capabilities: one per output format, present where the build writes it. */
export const CONVERT_CAPABILITIES = [
  ...VIDEO_OUTPUT_FORMATS.map((f) => ({ inputs: VIDEO_INPUTS, outputs: [f], options: VIDEO_OPTION_NAMES, feature: writesFeature(f) })),
  ...AUDIO_OUTPUT_FORMATS.map((f) => ({ inputs: [...NOT_GIF, ...AUDIO_INPUTS], outputs: [f], options: AUDIO_OPTION_NAMES, feature: writesFeature(f) })),
  { inputs: NOT_GIF, outputs: ['gif'], options: ['width', 'height', 'fps', 'trim_start', 'trim_end'], feature: writesFeature('gif') },
];

/** Discovery's groups of the formats here (lib/engines/core/formats.ts `formatGroup`); GIF stays an image. */
export const MEDIA_GROUPS: Readonly<Record<string, 'video' | 'audio'>> = {
  ...Object.fromEntries(NOT_GIF.map((f) => [f, 'video' as const])),
  ...Object.fromEntries(AUDIO_INPUTS.map((f) => [f, 'audio' as const])),
};

const ASF = [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11, 0xa6, 0xd9, 0x00, 0xaa, 0x00, 0x62, 0xce, 0x6c];
/** The ASF stream type of video (BC19EFC0-5B4D-11CF-A8FD-00805F5C442B as stored). */
const ASF_VIDEO = Buffer.from([0xc0, 0xef, 0x19, 0xbc, 0x4d, 0x5b, 0xcf, 0x11, 0xa8, 0xfd, 0x00, 0x80, 0x5f, 0x5c, 0x44, 0x2b]);
const MXF = [0x06, 0x0e, 0x2b, 0x34, 0x02, 0x05, 0x01, 0x01, 0x0d, 0x01, 0x02, 0x01, 0x01];
const WTV = [0xb7, 0xd8, 0x00, 0x20, 0x37, 0x49, 0xda, 0x11, 0xa6, 0x4e, 0x00, 0x07, 0xe9, 0x5e, 0xad, 0x8d];

/** Signatures that are plain text at the start of the file. */
const TEXT_SIGNATURES: ReadonlyArray<[string, string]> = [
  ['.RMF', 'rm'], ['FWS', 'swf'], ['CWS', 'swf'], ['ZWS', 'swf'], ['nut/multimedia container', 'nut'], ['YUV4MPEG2 ', 'y4m'],
  ['DKIF', 'ivf'], ['TTA1', 'tta'], ['Creative Voice File\x1a', 'voc'], ['MMMD', 'mmf'], ['riff', 'w64'],
];

/**
 * The audio or video container a file's first bytes (512 are enough) say it is, for the formats of
 * this table that have a signature (lib/engines/core/formats.ts `sniffFormat` asks after its own).
 * ASF is `wmv` when a video stream is declared in those bytes, else `asf` (audio or video).
 */
export function sniffMedia(head: Buffer): string | undefined {
  const starts = (sig: number[], at = 0) => sig.every((b, i) => head[at + i] === b);
  const ascii = (text: string, at = 0) => head.subarray(at, at + text.length).toString('latin1') === text;
  // MPEG-TS: a sync byte every 188 bytes; BDAV (m2ts) packets carry a 4-byte timestamp before each, every 192.
  const packets = (at: number, size: number) => head.length > at + 2 * size && [0, size, 2 * size].every((k) => head[at + k] === 0x47);
  if (ascii('FLV\x01')) return 'flv';
  const text = TEXT_SIGNATURES.find(([sig]) => ascii(sig));
  if (text) return text[1];
  if (starts(WTV)) return 'wtv';
  if (starts([0x7f, 0xfe, 0x80, 0x01])) return 'dts';
  // An MPEG-1/2 video elementary stream opens with its sequence header.
  if (starts([0x00, 0x00, 0x01, 0xb3])) return 'm2v';
  if (ascii('RIFF') && ascii('AVI ', 8)) return 'avi';
  if (starts(ASF)) return head.includes(ASF_VIDEO) ? 'wmv' : 'asf';
  if (starts([0x00, 0x00, 0x01, 0xba])) return 'mpeg';
  if (packets(0, 188)) return 'ts';
  if (packets(4, 192)) return 'm2ts';
  if (starts(MXF)) return 'mxf';
  if (ascii('#!AMR')) return 'amr';
  if (ascii('FORM') && (ascii('AIFF', 8) || ascii('AIFC', 8))) return 'aiff';
  if (ascii('caff')) return 'caf';
  if (ascii('wvpk')) return 'wv';
  if (ascii('.snd')) return 'au';
  if (starts([0x1f, 0x07, 0x00]) && (head[3]! & 0x3f) === 0x3f) return 'dv';
  // AC-3 sync word and a bitstream id of plain AC-3 (up to 10) or E-AC-3 (11 to 16); ADTS: 12 sync bits and layer 00.
  if (starts([0x0b, 0x77]) && head.length > 5) return head[5]! >> 3 <= 10 ? 'ac3' : head[5]! >> 3 <= 16 ? 'eac3' : undefined;
  if (head[0] === 0xff && (head[1]! & 0xf6) === 0xf0) return 'aac';
  return undefined;
}
