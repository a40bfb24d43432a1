/**
 * FFmpeg's output arguments for this API's codec names (lib/engines/core/media-formats.ts): the encoder the installed build
 * has for each, and its quality settings (a constant quality by default, a bit rate when asked).
 */
import { EngineFailure } from '../core/errors.js';
import { encoderOf } from '../core/media-builds.js';
import { AUDIO_CODEC_ARGS, AUDIO_ENCODERS, VIDEO_ENCODERS, type MediaOutput } from '../core/media-formats.js';

export interface VideoQuality {
  crf?: number;
  preset?: string;
  /** kbit/s: a target bit rate instead of a constant quality. */
  video_bitrate?: number;
}

export interface AudioQuality {
  audio_bitrate?: number;
  audio_channels?: number;
  audio_frequency?: number;
}

/** The build's encoder for a codec name, or a failure that says the build lacks it. */
function encoder(executable: string, table: Readonly<Record<string, readonly string[]>>, name: string, kind: string): string {
  const choices = table[name] ?? [name];
  const found = encoderOf(executable, choices);
  if (!found) throw new EngineFailure('UNSUPPORTED_FORMAT', `This FFmpeg build has no ${kind} encoder for ${name} (${choices.join(' or ')}); choose another ${kind}_codec.`);
  return found;
}

/** The quality settings of one video encoder: `crf` (default per encoder) or `video_bitrate`. */
function videoQuality(codec: string, p: VideoQuality): string[] {
  const rate = p.video_bitrate !== undefined ? `${p.video_bitrate}k` : undefined;
  const crf = (fallback: number) => String(p.crf ?? fallback);
  switch (codec) {
    case 'libx264':
    case 'libx265':
      return [...(rate ? ['-b:v', rate] : ['-crf', crf(23)]), '-preset', String(p.preset ?? 'medium'), '-pix_fmt', 'yuv420p'];
    case 'libvpx-vp9':
      return [...(rate ? ['-b:v', rate] : ['-crf', crf(32), '-b:v', '0']), '-row-mt', '1', '-deadline', 'good', '-cpu-used', '4'];
    case 'libvpx':
      return ['-crf', crf(10), '-b:v', rate ?? '2M', '-deadline', 'good', '-cpu-used', '4'];
    case 'libsvtav1':
      return rate ? ['-b:v', rate, '-preset', '8'] : ['-crf', crf(35), '-preset', '8'];
    case 'libaom-av1':
      return [...(rate ? ['-b:v', rate] : ['-crf', crf(35), '-b:v', '0']), '-cpu-used', '8', '-row-mt', '1'];
    case 'libtheora':
      return rate ? ['-b:v', rate] : ['-q:v', '7'];
    default:
      // mpeg4, mpeg1/2video, wmv2: a fixed quantiser unless a bit rate is asked for.
      return rate ? ['-b:v', rate] : ['-q:v', '4'];
  }
}

/** `-c:v` and its settings for a codec name (`copy` copies the stream). */
export function videoCodecArgs(executable: string, name: string, p: VideoQuality): string[] {
  if (name === 'copy') return ['-c:v', 'copy'];
  const codec = encoder(executable, VIDEO_ENCODERS, name, 'video');
  return ['-c:v', codec, ...videoQuality(codec, p)];
}

const LOSSLESS = new Set(['flac', 'alac', 'wavpack', 'pcm', 'amr', 'tta']);

/** `-c:a` and its settings for a codec name in a container (`none`: no sound, `copy`: as it is). */
export function audioCodecArgs(executable: string, name: string, spec: MediaOutput, p: AudioQuality): string[] {
  if (name === 'none') return ['-an'];
  if (name === 'copy') return ['-c:a', 'copy'];
  const codec = name === 'pcm' ? (spec.pcm ?? 'pcm_s16le') : encoder(executable, AUDIO_ENCODERS, name, 'audio');
  const args = ['-c:a', codec];
  // AMR-NB has its own fixed modes; lossless codecs take no bit rate.
  if (!LOSSLESS.has(name)) args.push('-b:a', `${p.audio_bitrate ?? 128}k`);
  if (p.audio_channels !== undefined) args.push('-ac', String(p.audio_channels));
  const rate = p.audio_frequency ?? spec.rates?.[0];
  if (rate !== undefined) args.push('-ar', String(rate));
  return [...args, ...(AUDIO_CODEC_ARGS[name] ?? [])];
}
