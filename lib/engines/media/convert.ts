/**
 * convert on FFmpeg: video to video, audio or animated GIF, audio to audio, for every format of
 * lib/engines/core/media-formats.ts. The output's muxer is named (never guessed from the file name), its codecs are the
 * request's or the format's usual ones, and every input is decoded under a frame-size limit
 * (`-max_pixels`, MAX_IMAGE_PIXELS), so that a frame bomb in any container is refused by its decoder
 * before it allocates the frame.
 */
import type { EngineCall, EngineResult } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { ToolError } from '../core/tool.js';
import { audioCodecArgs, videoCodecArgs, type AudioQuality, type VideoQuality } from './codecs.js';
import { ffmpeg, inputArgs } from './ffmpeg.js';
import { MEDIA_OUTPUTS, type MediaOutput } from '../core/media-formats.js';
import { audioCodecOf, seconds } from './options.js';

/** What convert reads of a task's arguments. */
export interface ConvertArgs extends VideoQuality, AudioQuality {
  output_format?: string;
  video_codec?: string;
  audio_codec?: string;
  width?: number;
  height?: number;
  fit?: 'max' | 'crop' | 'scale';
  fps?: number;
  trim_start?: number | string;
  trim_end?: number | string;
}

const even = (n: number) => Math.max(2, n - (n % 2));

/** A scale filter for `width`/`height`: even sizes (H.264 needs them), the aspect kept unless `fit` is scale. */
export function scaleFilter(width?: number, height?: number, fit: ConvertArgs['fit'] = 'max'): string | undefined {
  if (width === undefined && height === undefined) return undefined;
  if (width === undefined || height === undefined) return width !== undefined ? `scale=${even(width)}:-2` : `scale=-2:${even(height!)}`;
  const [w, h] = [even(width), even(height)];
  if (fit === 'scale') return `scale=${w}:${h},setsar=1`;
  if (fit === 'crop') return `scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h},setsar=1`;
  return `scale=${w}:${h}:force_original_aspect_ratio=decrease,scale=trunc(iw/2)*2:trunc(ih/2)*2`;
}

/** Input options: where to start (`trim_start`) and the decoders' frame-size limit. */
function inputOptions(p: ConvertArgs, maxPixels: number): string[] {
  const start = p.trim_start === undefined ? 0 : seconds(p.trim_start);
  return [...(start > 0 ? ['-ss', String(start)] : []), '-max_pixels', String(Math.min(maxPixels, 2 ** 31 - 1))];
}

/** Seconds from `trim_start` to `trim_end`, when both ends are known. */
function trimmedLength(p: ConvertArgs): number | undefined {
  if (p.trim_end === undefined) return undefined;
  return seconds(p.trim_end) - (p.trim_start === undefined ? 0 : seconds(p.trim_start));
}

/** Output options: how long (`trim_end`, from `trim_start`). */
function lengthOptions(p: ConvertArgs): string[] {
  const length = trimmedLength(p);
  return length === undefined ? [] : ['-t', String(length)];
}

function videoOutput(executable: string, spec: MediaOutput, p: ConvertArgs): string[] {
  const codec = p.video_codec ?? spec.video!;
  const args = videoCodecArgs(executable, codec, p);
  if (codec !== 'copy') {
    const scale = scaleFilter(p.width, p.height, p.fit);
    if (scale) args.push('-vf', scale);
    const fps = p.fps ?? spec.frameRates?.[0];
    if (fps !== undefined) args.push('-r', String(fps));
  }
  return [...args, ...audioCodecArgs(executable, audioCodecOf(spec, p), spec, p)];
}

function gifOutput(p: ConvertArgs): string[] {
  const scale = scaleFilter(p.width ?? (p.height === undefined ? 480 : undefined), p.height, p.fit) ?? 'scale=480:-2';
  return ['-an', '-filter_complex', `fps=${p.fps ?? 10},${scale}:flags=lanczos,split[a][b];[a]palettegen[p];[b][p]paletteuse`, '-f', 'gif'];
}

/** The output arguments for `to` (muxer last before the file). */
function outputArgs(executable: string, to: string, p: ConvertArgs): string[] {
  if (to === 'gif') return gifOutput(p);
  const spec = MEDIA_OUTPUTS[to];
  if (!spec) throw new EngineFailure('UNSUPPORTED_FORMAT', `ffmpeg does not write ${to} here.`);
  const streams = spec.kind === 'audio' ? ['-vn', ...audioCodecArgs(executable, audioCodecOf(spec, p), spec, p)] : videoOutput(executable, spec, p);
  // Subtitle and data streams are left out: most containers here cannot hold the input's.
  return [...streams, '-sn', '-dn', ...(spec.args ?? []), '-f', spec.muxer];
}

/** A decoder's refusal of a frame over `-max_pixels` (with the frame size), and an output with nothing to write. */
const REFUSED_FRAME = /Picture size (\d+)x(\d+) exceeds specified max pixel count/;
const NO_STREAM = /Output file #\d+ does not contain any stream/;

/** What FFmpeg's error output says went wrong, as the engine's own failure. */
function failure(lines: { refusal?: RegExpExecArray; empty?: boolean }, filename: string, to: string, limit: number, cause: unknown): EngineFailure | undefined {
  if (lines.refusal) {
    const [, width, height] = lines.refusal;
    return new EngineFailure('IMAGE_TOO_LARGE', `${filename} has frames of ${width} × ${height} pixels; frames of up to ${limit} pixels are decoded (MAX_IMAGE_PIXELS).`, { cause });
  }
  if (lines.empty) return new EngineFailure('INVALID_INPUT', `${filename} has no ${MEDIA_OUTPUTS[to]?.kind === 'audio' ? 'sound' : 'video or sound'} to write as ${to}.`, { cause });
  return undefined;
}

export async function convertMedia(call: EngineCall<ConvertArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const to = normalizeFormat(String(p.output_format));
  const executable = call.choice.installed.executable!;
  const [name] = call.names(to, 1);
  const out = call.output(name!);
  const limit = call.config.MAX_IMAGE_PIXELS;
  const args = [...inputOptions(p, limit), ...inputArgs(input!.path, input!.format), '-map_metadata', '0'];
  args.push(...lengthOptions(p), ...outputArgs(executable, to, p), out);
  const seen: { refusal?: RegExpExecArray; empty?: boolean } = {};
  const watch = (line: string) => {
    seen.refusal ??= REFUSED_FRAME.exec(line) ?? undefined;
    seen.empty ||= NO_STREAM.test(line);
  };
  try {
    await ffmpeg(call, args, trimmedLength(p), watch);
  } catch (err) {
    throw (err instanceof ToolError && failure(seen, input!.filename, to, limit, err)) || err;
  }
  return { files: [{ path: out, filename: name!, contentType: mimeType(to) }] };
}
