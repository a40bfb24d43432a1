/**
 * What FFmpeg converts here follows what the installed build writes (its `-muxers` and `-encoders`,
 * here a made-up answer): a format whose muxer or usual encoder the build lacks is absent from the
 * registry's rows and refused at creation. And the media options are checked against the output
 * format at creation, naming the field.
 */
import { describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { ENGINES, type EngineDescriptor } from '#lib/engines/core/catalog.js';
import { EngineRegistry } from '#lib/engines/core/registry.js';
import { parseListing, writableFormats } from '#lib/engines/core/media-builds.js';
import { AUDIO_OUTPUT_FORMATS, VIDEO_OUTPUT_FORMATS, writesFeature } from '#lib/engines/core/media-formats.js';
import { engineOffers } from '#lib/file-api/operations/engines.js';
import { convert } from '#lib/file-api/operations/convert/operation.js';

const legend = (kind: string) => ` ${kind}:\n D. = Demuxing supported\n .E = Muxing supported\n --\n`;
const MUXERS = `${legend('File formats')}${['3g2', '3gp', 'ac3', 'adts', 'aiff', 'amr', 'asf', 'au', 'avi', 'caf', 'f4v', 'flac', 'flv', 'gif', 'ipod', 'matroska', 'mov', 'mp2', 'mp3', 'mp4', 'mpeg', 'mpegts', 'ogg', 'opus', 'vob', 'wav', 'webm', 'wv', 'rm', 'swf', 'w64', 'tta', 'eac3', 'spx', 'sdl,sdl2']
  .map((m) => `  E ${m.padEnd(16)}some container`)
  .join('\n')}\n`;
// Like Debian's build: no AMR-NB encoder; and no MXF muxer.
const ENCODERS = `${' Encoders:\n V..... = Video\n ------\n'}${[
  ['V.....', 'libx264'], ['V.....', 'libx265'], ['V.....', 'libvpx'], ['V.....', 'libvpx-vp9'], ['V.....', 'libaom-av1'], ['V.....', 'mpeg4'],
  ['V.....', 'mpeg2video'], ['V.....', 'wmv2'], ['V.....', 'libtheora'], ['V.....', 'gif'], ['A.....', 'aac'], ['A.....', 'libmp3lame'],
  ['A.....', 'libopus'], ['A.....', 'libvorbis'], ['A.....', 'flac'], ['A.....', 'pcm_s16le'], ['A.....', 'pcm_s16be'], ['A.....', 'ac3'],
  ['A.....', 'wmav2'], ['A.....', 'mp2'], ['A.....', 'alac'], ['A.....', 'wavpack'],
  ['V.....', 'rv20'], ['V.....', 'flv'], ['A.....', 'tta'], ['A.....', 'eac3'], ['A.....', 'libspeex'],
].map(([flags, name]) => ` ${flags} ${name!.padEnd(20)} An encoder`).join('\n')}\n`;

describe('the formats an FFmpeg build writes', () => {
  const parts = { muxers: parseListing(MUXERS), encoders: parseListing(ENCODERS) };

  it('reads the names of -muxers and -encoders, not their legend', () => {
    expect(parts.muxers.has('mp4')).toBe(true);
    expect(parts.muxers.has('sdl2')).toBe(true);
    expect(parts.muxers.has('Muxing')).toBe(false);
    expect(parts.encoders.has('libx264')).toBe(true);
    expect(parts.encoders.has('Video')).toBe(false);
  });

  it('are those whose muxer and usual encoders the build has', () => {
    const writes = writableFormats(parts);
    expect(writes).not.toContain('amr');
    expect(writes).not.toContain('mxf');
    expect(writes).toEqual(expect.arrayContaining(['mp4', 'webm', 'wmv', 'flv', 'mp3', 'ogg', 'wma', 'aac', 'aiff', 'gif']));
    expect(writes).toHaveLength(VIDEO_OUTPUT_FORMATS.length + AUDIO_OUTPUT_FORMATS.length + 1 - 2);
  });

  it('decide the registry’s rows and the creation check', () => {
    const features = writableFormats(parts).map(writesFeature);
    const descriptors: EngineDescriptor[] = ENGINES.map((d) => ({ ...d, detect: () => ({ versions: [{ version: '1.0' }], features: d.name === 'ffmpeg' ? features : [] }) }));
    const registry = new EngineRegistry(parseEngineConfig({}), engineOffers(), descriptors);
    const outputs = new Set(registry.rows().filter((r) => r.operation === 'convert' && r.engine === 'ffmpeg').map((r) => r.outputFormat));
    expect(outputs.has('amr')).toBe(false);
    expect(outputs.has('mxf')).toBe(false);
    expect(outputs.has('mp3')).toBe(true);
    expect(registry.check('convert', { inputFormat: 'wav', outputFormat: 'amr' })).toEqual([{ field: 'output_format', message: expect.stringContaining('cannot produce amr') }]);
    for (const [from, to] of [['flv', 'mp4'], ['wmv', 'webm'], ['wma', 'mp3'], ['aac', 'ogg'], ['mp4', 'mp3'], ['amr', 'wav'], ['mxf', 'mp4']]) {
      expect(registry.check('convert', { inputFormat: from, outputFormat: to }), `${from} → ${to}`).toEqual([]);
    }
  });
});

describe('media options at creation', () => {
  const problems = (args: Record<string, unknown>) => {
    const parsed = convert.schema.safeParse(args);
    return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'));
  };

  it('refuse video options on an audio format', () => {
    expect(problems({ output_format: 'mp3', video_codec: 'x264' })).toEqual(['video_codec']);
    expect(problems({ output_format: 'wav', fps: 25, crf: 20 })).toEqual(['crf', 'fps']);
    expect(problems({ output_format: 'wma', audio_codec: 'none' })).toEqual(['audio_codec']);
  });

  it('refuse a codec the container cannot hold', () => {
    expect(problems({ output_format: 'mp4', video_codec: 'vp8' })).toEqual(['video_codec']);
    expect(problems({ output_format: 'webm', audio_codec: 'aac' })).toEqual(['audio_codec']);
    expect(problems({ output_format: 'ogg', audio_codec: 'mp3' })).toEqual(['audio_codec']);
    // DivX and Xvid are MPEG-4 Part 2 by name; RealMedia holds the RealVideo FFmpeg encodes.
    expect(problems({ output_format: 'divx', video_codec: 'x264' })).toEqual(['video_codec']);
    expect(problems({ output_format: 'rm', video_codec: 'vp9', audio_codec: 'aac' })).toEqual(['video_codec', 'audio_codec']);
  });

  it('refuse sample rates and channels the codec does not take, and a trim that ends before it starts', () => {
    expect(problems({ output_format: 'amr', audio_frequency: 44100 })).toEqual(['audio_frequency']);
    expect(problems({ output_format: 'mp3', audio_channels: 6 })).toEqual(['audio_channels']);
    expect(problems({ output_format: 'mxf', audio_frequency: 44100 })).toEqual(['audio_frequency']);
    expect(problems({ output_format: 'swf', audio_frequency: 48000 })).toEqual(['audio_frequency']);
    expect(problems({ output_format: 'spx', audio_frequency: 44100, audio_channels: 6 })).toEqual(['audio_frequency', 'audio_channels']);
    expect(problems({ output_format: 'mp4', trim_start: '00:00:05', trim_end: 3 })).toEqual(['trim_end']);
    expect(problems({ output_format: 'mp4', trim_start: 'soon' })).toEqual(['trim_start']);
  });

  it('take what the format holds', () => {
    expect(problems({ output_format: 'mkv', video_codec: 'vp9', audio_codec: 'opus', video_bitrate: 800, width: 320, height: 240, fit: 'crop', fps: 24 })).toEqual([]);
    expect(problems({ output_format: 'ogg', audio_codec: 'opus', audio_frequency: 48000, audio_channels: 1, trim_start: 1, trim_end: '00:00:02.5' })).toEqual([]);
    expect(problems({ output_format: 'mp4', video_codec: 'x265', audio_codec: 'copy' })).toEqual([]);
    expect(problems({ output_format: 'rm', video_codec: 'rv10', audio_frequency: 48000 })).toEqual([]);
    expect(problems({ output_format: 'eac3', audio_channels: 6, audio_bitrate: 384 })).toEqual([]);
    // Image outputs are not FFmpeg's: their own options only.
    expect(problems({ output_format: 'png', width: 100 })).toEqual([]);
  });
});
