/**
 * Every audio and video format of lib/engines/core/media-formats.ts through the engine's convert handler,
 * on whichever FFmpeg this machine's registry picks (the system one, or the static build of
 * @ffmpeg-installer under a fresh machine's PATH): each input format, made here by the shipped
 * FFmpeg from lavfi sources, converted to a common target; each output format the build writes
 * produced; every result read back by MediaInfo (mediainfo.js, in WebAssembly) or music-metadata,
 * never by FFmpeg's own ffprobe. Short and small files: one second of 64×48 video.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mediaInfoFactory, { type MediaInfo } from 'mediainfo.js';
import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { shippedFfmpeg } from '#lib/engines/core/shipped.js';
import { buildParts, writableFormats } from '#lib/engines/core/media-builds.js';
import { convertMedia, type ConvertArgs } from '#lib/engines/media/convert.js';
import { AUDIO_INPUTS, SHIPPED_FFMPEG_WRITES, VIDEO_INPUTS, writesFeature } from '#lib/engines/core/media-formats.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { SNIFF_BYTES, sniffFormat } from '#lib/engines/core/formats.js';
import { engineCall } from '../support/engine-call.js';
import { engine, requires } from '../support/requires.js';
import { ApiError } from '#lib/kernel/errors.js';
import { base64, startEngineHarness } from './engines-harness.js';

const ffmpeg = requires(engine('ffmpeg'));
let dir: string;
let info: MediaInfo<'object'>;

const VIDEO = ['-f', 'lavfi', '-i', 'testsrc=s=64x48:r=10:d=1', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-shortest'];
const VIDEO25 = ['-f', 'lavfi', '-i', 'testsrc=s=64x48:r=25:d=1', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=48000', '-shortest'];
const AUDIO = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'];
const H264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac'];
/** Picture only, at 25 fps: raw streams carry no frame rate and are read at 25. */
const PICTURE = ['-f', 'lavfi', '-i', 'testsrc=s=64x48:r=25:d=1', '-pix_fmt', 'yuv420p'];
/** The inputs that have no sound. */
const SILENT = new Set(['gif', 'y4m', 'ivf', 'm2v', 'h264', 'hevc', 'm1v', 'mjpeg', 'mjpg']);

/** How the shipped FFmpeg writes a file of each input format (with codecs other than the engine's usual ones where the container allows). */
const MAKE: Record<string, string[]> = {
  mp4: [...VIDEO, ...H264, '-f', 'mp4'],
  m4v: [...VIDEO, ...H264, '-f', 'mp4'],
  mov: [...VIDEO, ...H264, '-f', 'mov'],
  '3gp': [...VIDEO, ...H264, '-f', '3gp'],
  '3g2': [...VIDEO, ...H264, '-f', '3g2'],
  f4v: [...VIDEO, ...H264, '-f', 'f4v'],
  mkv: [...VIDEO, '-c:v', 'mpeg4', '-c:a', 'flac', '-f', 'matroska'],
  webm: [...VIDEO, '-c:v', 'libvpx', '-c:a', 'libvorbis', '-f', 'webm'],
  avi: [...VIDEO, '-c:v', 'mpeg4', '-c:a', 'libmp3lame', '-f', 'avi'],
  flv: [...VIDEO, '-c:v', 'flv', '-c:a', 'libmp3lame', '-ar', '44100', '-f', 'flv'],
  wmv: [...VIDEO, '-c:v', 'wmv2', '-c:a', 'wmav2', '-f', 'asf'],
  asf: [...VIDEO, '-c:v', 'wmv1', '-c:a', 'wmav2', '-f', 'asf'],
  mpeg: [...VIDEO25, '-c:v', 'mpeg1video', '-c:a', 'mp2', '-f', 'mpeg'],
  mpg: [...VIDEO25, '-c:v', 'mpeg2video', '-c:a', 'mp2', '-f', 'mpeg'],
  vob: [...VIDEO25, '-c:v', 'mpeg2video', '-c:a', 'ac3', '-f', 'vob'],
  ts: [...VIDEO, ...H264, '-f', 'mpegts'],
  m2ts: [...VIDEO25, '-c:v', 'mpeg2video', '-c:a', 'ac3', '-f', 'mpegts', '-mpegts_m2ts_mode', '1'],
  mts: [...VIDEO, ...H264, '-f', 'mpegts', '-mpegts_m2ts_mode', '1'],
  ogv: [...VIDEO, '-c:v', 'libtheora', '-c:a', 'libvorbis', '-f', 'ogg'],
  mxf: [...VIDEO25, '-c:v', 'mpeg2video', '-c:a', 'pcm_s16le', '-f', 'mxf'],
  dv: ['-f', 'lavfi', '-i', 'testsrc=s=720x576:r=25:d=0.4', '-f', 'lavfi', '-i', 'sine=duration=0.4:sample_rate=48000', '-shortest', '-target', 'pal-dv', '-f', 'dv'],
  gif: ['-f', 'lavfi', '-i', 'testsrc=s=64x48:r=10:d=1', '-f', 'gif'],
  mp3: [...AUDIO, '-c:a', 'libmp3lame', '-f', 'mp3'],
  mp2: [...AUDIO, '-c:a', 'mp2', '-f', 'mp2'],
  wav: [...AUDIO, '-c:a', 'pcm_s16le', '-f', 'wav'],
  flac: [...AUDIO, '-c:a', 'flac', '-f', 'flac'],
  ogg: [...AUDIO, '-c:a', 'libvorbis', '-f', 'ogg'],
  opus: [...AUDIO, '-c:a', 'libopus', '-f', 'opus'],
  m4a: [...AUDIO, '-c:a', 'aac', '-f', 'ipod'],
  m4b: [...AUDIO, '-c:a', 'alac', '-f', 'ipod'],
  aac: [...AUDIO, '-c:a', 'aac', '-f', 'adts'],
  ac3: [...AUDIO, '-c:a', 'ac3', '-f', 'ac3'],
  aiff: [...AUDIO, '-c:a', 'pcm_s16be', '-f', 'aiff'],
  aif: [...AUDIO, '-c:a', 'pcm_s24be', '-f', 'aiff'],
  amr: [...AUDIO, '-c:a', 'libopencore_amrnb', '-ar', '8000', '-ac', '1', '-f', 'amr'],
  wma: [...AUDIO, '-c:a', 'wmav2', '-f', 'asf'],
  caf: [...AUDIO, '-c:a', 'pcm_s16le', '-f', 'caf'],
  au: [...AUDIO, '-c:a', 'pcm_mulaw', '-f', 'au'],
  mka: [...AUDIO, '-c:a', 'libopus', '-f', 'matroska'],
  weba: [...AUDIO, '-c:a', 'libvorbis', '-f', 'webm'],
  wv: [...AUDIO, '-c:a', 'wavpack', '-f', 'wv'],
  '3gpp': [...VIDEO, '-c:v', 'mpeg4', '-c:a', 'libopencore_amrnb', '-ar', '8000', '-ac', '1', '-f', '3gp'],
  mod: [...VIDEO25, '-c:v', 'mpeg2video', '-c:a', 'mp2', '-f', 'mpeg'],
  divx: [...VIDEO, '-c:v', 'mpeg4', '-vtag', 'DIVX', '-c:a', 'libmp3lame', '-f', 'avi'],
  xvid: [...VIDEO, '-c:v', 'mpeg4', '-vtag', 'XVID', '-c:a', 'ac3', '-f', 'avi'],
  rm: [...VIDEO, '-c:v', 'rv10', '-c:a', 'ac3', '-f', 'rm'],
  rmvb: [...VIDEO, '-c:v', 'rv20', '-c:a', 'real_144', '-ar', '8000', '-ac', '1', '-f', 'rm'],
  swf: [...VIDEO, '-c:v', 'flv', '-c:a', 'libmp3lame', '-ar', '22050', '-f', 'swf'],
  nut: [...VIDEO, '-c:v', 'ffv1', '-c:a', 'flac', '-f', 'nut'],
  wtv: [...VIDEO25, '-c:v', 'mpeg2video', '-c:a', 'mp2', '-f', 'wtv'],
  y4m: [...PICTURE, '-f', 'yuv4mpegpipe'],
  ivf: [...PICTURE, '-c:v', 'libvpx-vp9', '-f', 'ivf'],
  m2v: [...PICTURE, '-c:v', 'mpeg2video', '-f', 'mpeg2video'],
  h264: [...PICTURE, '-c:v', 'libx264', '-preset', 'ultrafast', '-f', 'h264'],
  hevc: [...PICTURE, '-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=error', '-f', 'hevc'],
  oga: [...AUDIO, '-c:a', 'flac', '-f', 'ogg'],
  m4r: [...AUDIO, '-c:a', 'aac', '-f', 'ipod'],
  aifc: [...AUDIO, '-c:a', 'pcm_f32be', '-f', 'aiff'],
  w64: [...AUDIO, '-c:a', 'pcm_s24le', '-f', 'w64'],
  tta: [...AUDIO, '-c:a', 'tta', '-f', 'tta'],
  eac3: [...AUDIO, '-c:a', 'eac3', '-f', 'eac3'],
  dts: [...AUDIO, '-c:a', 'dca', '-strict', '-2', '-b:a', '320k', '-f', 'dts'],
  spx: [...AUDIO, '-c:a', 'libspeex', '-ar', '16000', '-f', 'spx'],
  ra: [...AUDIO, '-c:a', 'real_144', '-ar', '8000', '-ac', '1', '-f', 'rm'],
  voc: [...AUDIO, '-c:a', 'pcm_u8', '-f', 'voc'],
  mmf: [...AUDIO, '-c:a', 'adpcm_yamaha', '-ar', '8000', '-f', 'mmf'],
  m1v: [...PICTURE, '-c:v', 'mpeg1video', '-f', 'mpeg1video'],
  mjpeg: [...PICTURE.slice(0, -2), '-pix_fmt', 'yuvj420p', '-c:v', 'mjpeg', '-f', 'mjpeg'],
  mjpg: [...PICTURE.slice(0, -2), '-pix_fmt', 'yuvj422p', '-c:v', 'mjpeg', '-q:v', '3', '-f', 'mjpeg'],
  mpe: [...VIDEO25, '-c:v', 'mpeg1video', '-c:a', 'libmp3lame', '-f', 'mpeg'],
  m2t: [...VIDEO, '-c:v', 'mpeg2video', '-c:a', 'ac3', '-f', 'mpegts'],
  snd: [...AUDIO, '-c:a', 'pcm_alaw', '-f', 'au'],
  awb: [...AUDIO, '-c:a', 'libvo_amrwbenc', '-ar', '16000', '-ac', '1', '-f', 'amr'],
};

/**
 * What MediaInfo says each output format is: its container, and the codecs of its video and audio
 * tracks; or, where MediaInfo reads no duration (ADTS) or nothing (a small WavPack file), what
 * music-metadata says its container is.
 */
const READ_AS: Record<string, { general: RegExp; video?: RegExp; audio?: RegExp; musicMetadata?: [string, RegExp]; codecId?: string }> = {
  mp4: { general: /^MPEG-4$/, video: /^AVC$/, audio: /^AAC$/ },
  m4v: { general: /^MPEG-4$/, video: /^AVC$/, audio: /^AAC$/ },
  mov: { general: /^MPEG-4$/, video: /^AVC$/, audio: /^AAC$/ },
  mkv: { general: /^Matroska$/, video: /^AVC$/, audio: /^AAC$/ },
  webm: { general: /^WebM$/, video: /^VP9$/, audio: /^Opus$/ },
  avi: { general: /^AVI$/, video: /^MPEG-4 Visual$/, audio: /^MPEG Audio$/ },
  flv: { general: /^Flash Video$/, video: /^AVC$/, audio: /^AAC$/ },
  f4v: { general: /^MPEG-4$/, video: /^AVC$/, audio: /^AAC$/ },
  wmv: { general: /^Windows Media$/, video: /^WMV2$/, audio: /^WMA$/ },
  asf: { general: /^Windows Media$/, video: /^WMV2$/, audio: /^WMA$/ },
  '3gp': { general: /^MPEG-4$/, video: /^AVC$/, audio: /^AAC$/ },
  '3g2': { general: /^(MPEG-4|3g2.?)$/, video: /^AVC$/, audio: /^AAC$/ },
  mpeg: { general: /^MPEG-PS$/, video: /^MPEG Video$/, audio: /^MPEG Audio$/ },
  mpg: { general: /^MPEG-PS$/, video: /^MPEG Video$/, audio: /^MPEG Audio$/ },
  vob: { general: /^MPEG-PS$/, video: /^MPEG Video$/, audio: /^AC-3$/ },
  ts: { general: /^MPEG-TS$/, video: /^AVC$/, audio: /^AAC$/ },
  m2ts: { general: /^BDAV$/, video: /^AVC$/, audio: /^AAC$/ },
  mts: { general: /^BDAV$/, video: /^AVC$/, audio: /^AAC$/ },
  ogv: { general: /^Ogg$/, video: /^Theora$/, audio: /^Vorbis$/ },
  mxf: { general: /^MXF$/, video: /^MPEG Video$/, audio: /^PCM$/ },
  gif: { general: /^GIF$/ },
  mp3: { general: /^MPEG Audio$/, audio: /^MPEG Audio$/ },
  wav: { general: /^Wave$/, audio: /^PCM$/ },
  ogg: { general: /^Ogg$/, audio: /^Vorbis$/ },
  opus: { general: /^Ogg$/, audio: /^Opus$/ },
  m4a: { general: /^MPEG-4$/, audio: /^AAC$/ },
  m4b: { general: /^MPEG-4$/, audio: /^AAC$/ },
  flac: { general: /^FLAC$/, audio: /^FLAC$/ },
  aac: { general: /^ADTS$/, audio: /^AAC$/, musicMetadata: ['audio/aac', /^ADTS\/MPEG-4$/] },
  ac3: { general: /^AC-3$/, audio: /^AC-3$/ },
  aiff: { general: /^AIFF$/, audio: /^PCM$/ },
  aif: { general: /^AIFF$/, audio: /^PCM$/ },
  amr: { general: /^AMR$/, audio: /^AMR$/ },
  wma: { general: /^Windows Media$/, audio: /^WMA$/ },
  caf: { general: /^CAF$/, audio: /^PCM$/ },
  mp2: { general: /^MPEG Audio$/, audio: /^MPEG Audio$/ },
  au: { general: /^AU$/, audio: /^PCM$/ },
  mka: { general: /^Matroska$/, audio: /^AAC$/ },
  weba: { general: /^WebM$/, audio: /^Opus$/ },
  wv: { general: /^WavPack$/, audio: /^WavPack$/, musicMetadata: ['audio/wavpack', /^WavPack$/] },
  '3gpp': { general: /^MPEG-4$/, video: /^AVC$/, audio: /^AAC$/ },
  mod: { general: /^MPEG-PS$/, video: /^MPEG Video$/, audio: /^MPEG Audio$/ },
  divx: { general: /^AVI$/, video: /^MPEG-4 Visual$/, audio: /^MPEG Audio$/, codecId: 'DIVX' },
  xvid: { general: /^AVI$/, video: /^MPEG-4 Visual$/, audio: /^MPEG Audio$/, codecId: 'XVID' },
  rm: { general: /^RealMedia$/, video: /^RealVideo 2$/, audio: /^AC-3$/ },
  swf: { general: /^ShockWave$/, video: /^H\.263$/, audio: /^MPEG Audio$/ },
  oga: { general: /^Ogg$/, audio: /^Vorbis$/ },
  m4r: { general: /^MPEG-4$/, audio: /^AAC$/ },
  aifc: { general: /^AIFF$/, audio: /^PCM$/, musicMetadata: ['audio/aiff', /^AIFF-C$/] },
  w64: { general: /^Wave64$/, audio: /^PCM$/ },
  tta: { general: /^TTA$/, audio: /^TTA$/ },
  eac3: { general: /^E-AC-3$/, audio: /^E-AC-3$/ },
  spx: { general: /^Ogg$/, audio: /^Speex$/ },
  ra: { general: /^RealMedia$/, audio: /^AC-3$/ },
  mpe: { general: /^MPEG-PS$/, video: /^MPEG Video$/, audio: /^MPEG Audio$/ },
  m2t: { general: /^MPEG-TS$/, video: /^AVC$/, audio: /^AAC$/ },
  snd: { general: /^AU$/, audio: /^PCM$/ },
};

type Track = Record<string, unknown> & { '@type': string; Format?: string; Duration?: number | string };

/** MediaInfo's tracks of a file. */
async function tracks(bytes: Buffer): Promise<Track[]> {
  const result = await info.analyzeData(bytes.length, (size, offset) => bytes.subarray(offset, offset + size));
  return (result.media?.track ?? []) as unknown as Track[];
}
const track = (all: Track[], type: string) => all.find((t) => t['@type'] === type);

/** A file of `format` made by the shipped FFmpeg. */
const made = new Map<string, Buffer>();
function make(format: string): Buffer {
  let bytes = made.get(format);
  if (!bytes) {
    const file = path.join(dir, `source.${format}`);
    execFileSync(shippedFfmpeg()!.file, ['-hide_banner', '-loglevel', 'error', '-y', ...MAKE[format]!, file]);
    bytes = readFileSync(file);
    made.set(format, bytes);
  }
  return bytes;
}

/** Runs the engine's convert handler on a file of `from`; the output's bytes. */
async function convert(from: string, args: ConvertArgs, env: Record<string, string> = {}): Promise<Buffer> {
  const { call, remove } = engineCall<ConvertArgs>('ffmpeg', 'convert', args, [{ filename: `in.${from}`, data: make(from), format: from }], env);
  try {
    const { files } = await convertMedia(call);
    return readFileSync(files[0]!.path);
  } finally {
    remove();
  }
}

/** The formats this machine's FFmpeg writes, as its registry offers them. */
const registry = () => newEngineRegistry(parseEngineConfig(process.env));
const writes = () => (registry().installation('ffmpeg').features ?? []).filter((f) => f.startsWith('writes:')).map((f) => f.slice('writes:'.length));

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'media-formats-'));
  info = await mediaInfoFactory({ format: 'object' });
});
afterAll(() => {
  info?.close();
  rmSync(dir, { recursive: true, force: true });
});

ffmpeg.describe('the FFmpeg builds', () => {
  it('the shipped static build writes what the deployed media function says it does', () => {
    const shipped = shippedFfmpeg()!.file;
    expect(writableFormats(buildParts(shipped)!).sort()).toEqual([...SHIPPED_FFMPEG_WRITES].sort());
  });

  it('this machine’s registry offers as outputs exactly what its build writes', () => {
    const r = registry();
    const executable = r.installation('ffmpeg').versions[0]!.executable!;
    const outputs = new Set(r.rows().filter((row) => row.operation === 'convert' && row.engine === 'ffmpeg').map((row) => row.outputFormat));
    expect([...outputs].sort()).toEqual(writableFormats(buildParts(executable)!).sort());
    expect(writes().map(writesFeature).every((f) => r.installation('ffmpeg').features!.includes(f))).toBe(true);
  });
});

ffmpeg.describe('every input format', () => {
  it.each(VIDEO_INPUTS.map((f) => [f]))('%s to mp4', async (from) => {
    const all = await tracks(await convert(from, { output_format: 'mp4', preset: 'ultrafast' }));
    expect(track(all, 'General')!.Format).toBe('MPEG-4');
    expect(track(all, 'Video')!.Format).toBe('AVC');
    if (!SILENT.has(from)) expect(track(all, 'Audio')!.Format).toBe('AAC');
    expect(Number(track(all, 'General')!.Duration)).toBeGreaterThan(from === 'dv' ? 0.3 : 0.8);
  });

  it.each(AUDIO_INPUTS.map((f) => [f]))('%s to wav', async (from) => {
    const wav = await convert(from, { output_format: 'wav' });
    const meta = await parseBuffer(wav, { mimeType: 'audio/wav' });
    expect(meta.format.container).toBe('WAVE');
    expect(meta.format.duration).toBeGreaterThan(0.8);
    expect(meta.format.duration).toBeLessThan(1.3);
  });
});

ffmpeg.describe('every output format this build writes', () => {
  const outputs = ffmpeg.met ? writes() : [];
  const expected = (format: string) => READ_AS[format] ?? { general: /^unlisted$/ };

  it('covers each format the build writes with a reader’s expectation', () => {
    expect(outputs.filter((f) => !READ_AS[f])).toEqual([]);
  });

  it.each(Object.keys(READ_AS).map((f) => [f]))('%s', async (to) => {
    if (!outputs.includes(to)) return void expect(writableFormats(buildParts(registry().installation('ffmpeg').versions[0]!.executable!)!)).not.toContain(to);
    const { general, video, audio, musicMetadata, codecId } = expected(to);
    const from = video || to === 'gif' ? 'mp4' : 'wav';
    const bytes = await convert(from, from === 'mp4' ? { output_format: to, preset: 'ultrafast' } : { output_format: to });
    if (musicMetadata) {
      const { format } = await parseBuffer(bytes, { mimeType: musicMetadata[0] }, { duration: true });
      expect(format.container).toMatch(musicMetadata[1]);
      return void expect(format.duration).toBeGreaterThan(0.8);
    }
    const all = await tracks(bytes);
    expect(track(all, 'General')!.Format).toMatch(general);
    // MediaInfo lists SWF's video twice, once from its header without a format.
    const picture = all.find((t) => t['@type'] === 'Video' && t.Format);
    if (video) expect(picture?.Format).toMatch(video);
    if (codecId) expect(picture?.CodecID).toBe(codecId);
    if (audio) expect(track(all, 'Audio')?.Format).toMatch(audio);
    if (to === 'gif') expect(track(all, 'Image')?.Format).toBe('GIF');
    else expect(Number(track(all, 'General')!.Duration)).toBeGreaterThan(0.8);
  });
});

ffmpeg.describe('the acceptance conversions', () => {
  it('FLV → MP4 and WMV → WEBM keep picture and sound', async () => {
    for (const [from, to, container, video, audio] of [['flv', 'mp4', 'MPEG-4', 'AVC', 'AAC'], ['wmv', 'webm', 'WebM', 'VP9', 'Opus']] as const) {
      const all = await tracks(await convert(from, { output_format: to, preset: 'ultrafast' }));
      expect(track(all, 'General')!.Format, `${from} → ${to}`).toBe(container);
      expect(track(all, 'Video')).toMatchObject({ Format: video, Width: 64, Height: 48 });
      expect(track(all, 'Audio')!.Format).toBe(audio);
      expect(Number(track(all, 'General')!.Duration)).toBeCloseTo(1, 0);
    }
  });

  it('WMA → MP3, AAC → OGG and MP4 → MP3 (the sound of a video) play for their second', async () => {
    for (const [from, to, mime, codec] of [['wma', 'mp3', 'audio/mpeg', /^MPEG 1 Layer 3$/], ['aac', 'ogg', 'audio/ogg', /^Vorbis/], ['mp4', 'mp3', 'audio/mpeg', /^MPEG 1 Layer 3$/]] as const) {
      const { format } = await parseBuffer(await convert(from, { output_format: to }), { mimeType: mime }, { duration: true });
      expect(format.codec, `${from} → ${to}`).toMatch(codec);
      expect(format.duration).toBeGreaterThan(0.9);
      expect(format.duration).toBeLessThan(1.2);
    }
  });
});

ffmpeg.describe('options', () => {
  it('trim_start and trim_end keep that part only', async () => {
    const all = await tracks(await convert('mp4', { output_format: 'mkv', preset: 'ultrafast', trim_start: 0.2, trim_end: '00:00:00.7' }));
    expect(Number(track(all, 'General')!.Duration)).toBeGreaterThan(0.4);
    expect(Number(track(all, 'General')!.Duration)).toBeLessThan(0.65);
  });

  it('width, height and fit: crop fills the box, max fits inside it, scale stretches', async () => {
    const size = async (fit: ConvertArgs['fit']) => {
      const video = track(await tracks(await convert('mp4', { output_format: 'mp4', preset: 'ultrafast', width: 40, height: 40, fit })), 'Video')!;
      return [Number(video.Width), Number(video.Height), Number(video.DisplayAspectRatio)];
    };
    expect(await size('crop')).toEqual([40, 40, 1]);
    expect((await size('max')).slice(0, 2)).toEqual([40, 30]);
    expect(await size('scale')).toEqual([40, 40, 1]);
  });

  it('video_codec, fps and video_bitrate', async () => {
    const all = await tracks(await convert('mp4', { output_format: 'mp4', video_codec: 'x265', preset: 'ultrafast', fps: 5, video_bitrate: 50 }));
    expect(track(all, 'Video')).toMatchObject({ Format: 'HEVC', FrameRate: 5 });
    const vp8 = await tracks(await convert('mp4', { output_format: 'webm', video_codec: 'vp8', audio_codec: 'vorbis' }));
    expect(track(vp8, 'Video')!.Format).toBe('VP8');
    expect(track(vp8, 'Audio')!.Format).toBe('Vorbis');
    const sized = async (kbps: number) => Number(track(await tracks(await convert('mp4', { output_format: 'mkv', preset: 'ultrafast', video_bitrate: kbps, audio_codec: 'none' })), 'General')!.FileSize);
    // Ignored, both would be the same constant-quality encoding.
    expect(await sized(2000)).toBeGreaterThan(await sized(16));
  });

  it('audio_codec, audio_channels, audio_frequency and audio_bitrate', async () => {
    const ogg = await parseBuffer(await convert('wav', { output_format: 'ogg', audio_codec: 'opus', audio_channels: 2, audio_frequency: 24000 }), { mimeType: 'audio/ogg' });
    expect(ogg.format).toMatchObject({ codec: 'Opus', numberOfChannels: 2 });
    const mp3 = await parseBuffer(await convert('wav', { output_format: 'mp3', audio_bitrate: 64, audio_frequency: 22050 }), { mimeType: 'audio/mpeg' });
    expect(mp3.format).toMatchObject({ sampleRate: 22050, bitrate: 64_000, numberOfChannels: 1 });
    const silent = await tracks(await convert('mp4', { output_format: 'mp4', preset: 'ultrafast', audio_codec: 'none' }));
    expect(track(silent, 'Audio')).toBeUndefined();
  });
});

ffmpeg.describe('inputs without what the output needs', () => {
  it('a video without sound to an audio format is INVALID_INPUT, saying so', async () => {
    const file = path.join(dir, 'silent.mp4');
    execFileSync(shippedFfmpeg()!.file, ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=s=64x48:r=10:d=1', ...H264, file]);
    made.set('silent', readFileSync(file));
    const { call, remove } = engineCall<ConvertArgs>('ffmpeg', 'convert', { output_format: 'mp3' }, [{ filename: 'silent.mp4', data: made.get('silent')!, format: 'mp4' }]);
    const refused = await convertMedia(call).catch((err: unknown) => err).finally(remove);
    expect(refused).toMatchObject({ name: 'EngineFailure', code: 'INVALID_INPUT', message: 'silent.mp4 has no sound to write as mp3.' });
  });
});

ffmpeg.describe('frame bombs', () => {
  // 64×48 frames (3,072 pixels) against a limit of 3,000: every container's decoder refuses them before decoding.
  it.each(VIDEO_INPUTS.filter((f) => f !== 'dv').map((f) => [f]))('%s frames over MAX_IMAGE_PIXELS are refused', async (from) => {
    const refused = await convert(from, { output_format: 'mp4', preset: 'ultrafast' }, { MAX_IMAGE_PIXELS: '3000' }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ name: 'EngineFailure', code: 'IMAGE_TOO_LARGE', message: expect.stringMatching(/^in\.\w+ has frames of 64 × 48 pixels; frames of up to 3000 pixels/) });
  });

  it('dv (720×576 PAL frames) over a limit of 400,000 pixels is refused', async () => {
    const refused = await convert('dv', { output_format: 'mp4', preset: 'ultrafast' }, { MAX_IMAGE_PIXELS: '400000' }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'IMAGE_TOO_LARGE', message: expect.stringContaining('720 × 576') });
  });
});

ffmpeg.describe('files without an extension', () => {
  // What each container's signature says it is (ASF: wmv when it declares a video stream).
  const SNIFFED: Record<string, string> = {
    flv: 'flv', avi: 'avi', wmv: 'wmv', asf: 'wmv', wma: 'asf', mpeg: 'mpeg', mpg: 'mpeg', vob: 'mpeg', ts: 'ts', m2ts: 'm2ts', mts: 'm2ts',
    mxf: 'mxf', dv: 'dv', amr: 'amr', aiff: 'aiff', aif: 'aiff', caf: 'caf', wv: 'wv', au: 'au', ac3: 'ac3', aac: 'aac',
    mod: 'mpeg', divx: 'avi', xvid: 'avi', rm: 'rm', rmvb: 'rm', ra: 'rm', swf: 'swf', nut: 'nut', wtv: 'wtv', y4m: 'y4m', ivf: 'ivf', m2v: 'm2v',
    aifc: 'aiff', w64: 'w64', tta: 'tta', eac3: 'eac3', dts: 'dts', voc: 'voc', mmf: 'mmf',
    m1v: 'm2v', mpe: 'mpeg', m2t: 'ts', snd: 'au', awb: 'amr',
  };
  it.each(Object.entries(SNIFFED))('a %s file is sniffed as %s', (format, sniffed) => {
    expect(sniffFormat(make(format).subarray(0, SNIFF_BYTES))).toBe(sniffed);
  });
});

ffmpeg.describe('at task creation', () => {
  it('a media option the output format does not take, or an output the build does not write, is a 422 naming the field', async () => {
    const h = await startEngineHarness();
    const fields = async (task: Record<string, unknown>) => {
      try {
        await h.run({ clip: base64(make('flv'), 'clip.flv'), t: { operation: 'convert', input: 'clip', input_format: 'flv', ...task } });
      } catch (err) {
        if (err instanceof ApiError) return Object.keys(err.fields ?? {});
        throw err;
      }
      return [];
    };
    try {
      expect(await fields({ output_format: 'mp3', video_codec: 'x264' })).toEqual(['tasks.t.video_codec']);
      expect(await fields({ output_format: 'webm', audio_codec: 'aac' })).toEqual(['tasks.t.audio_codec']);
      expect(await fields({ output_format: 'amr', audio_frequency: 44100 })).toEqual(['tasks.t.audio_frequency']);
      // AMR-NB: an output of the static build only (Debian's FFmpeg has no encoder for it).
      expect(await fields({ output_format: 'amr' })).toEqual(writes().includes('amr') ? [] : ['tasks.t.output_format']);
    } finally {
      await h.close();
    }
  });
});
