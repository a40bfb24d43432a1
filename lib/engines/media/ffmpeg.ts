/**
 * The FFmpeg engine: video and audio conversion, video thumbnails at a timestamp, video watermarks
 * (the watermark is rendered by sharp, exactly as on images, and laid over every frame).
 *
 * Every input is opened with its demuxer pinned from the detected format and only the `file` protocol
 * allowed (for nested opens too), so that a playlist in a video's clothes (HLS, concat lists, …) is
 * never read as one and nothing is fetched from a URL or another file.
 *
 * Two builds: the system FFmpeg (FFMPEG_PATH, FFPROBE_PATH), or the static builds shipped in
 * @ffmpeg-installer (an FFmpeg 4.1 snapshot of December 2018) and @ffprobe-installer (July 2023). The
 * static FFmpeg has every codec, filter and option used here but SVT-AV1: AV1 is encoded by libaom there.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineConfig } from '../../kernel/config.js';
import type { EngineCall, EngineResult, Produced } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { mimeType, normalizeFormat } from '../core/formats.js';
import { ffprobeExecutable } from '../core/shipped.js';
import { fitInside, placement, renderWatermark, thumbnailFile, type ResizeOptions, type WatermarkSpec } from '../image/sharp.js';
import { runTool } from '../core/tool.js';
import { videoCodecArgs } from './codecs.js';
import { DEMUXERS, MEDIA_OUTPUTS } from '../core/media-formats.js';

/** How ffmpeg and ffprobe open an input: its format's demuxer, from a plain file only (nested opens included). */
export function openArgs(format: string | null | undefined): string[] {
  const demuxer = format ? DEMUXERS[format] : undefined;
  if (!demuxer) throw new EngineFailure('UNSUPPORTED_FORMAT', `ffmpeg does not read ${format ?? 'files of unknown format'} here.`);
  return ['-protocol_whitelist', 'file', '-f', demuxer];
}

/** `-i file`, read as `format`. */
export const inputArgs = (file: string, format: string | null | undefined) => [...openArgs(format), '-i', file];

export interface MediaInfo {
  duration: number;
  width?: number;
  height?: number;
  hasAudio: boolean;
}

/** Duration, frame size and whether there is sound, from ffprobe. */
export async function probe(
  call: Pick<EngineCall, 'config' | 'tool'>,
  file: string,
  format: string | null | undefined,
  settings: Pick<EngineConfig, 'FFPROBE_PATH' | 'SHIPPED_ENGINES'> = call.config,
): Promise<MediaInfo> {
  const ffprobe = await ffprobeExecutable(settings);
  if (!ffprobe) throw new EngineFailure('ENGINE_UNAVAILABLE', `ffprobe was not found; install it or set FFPROBE_PATH.`);
  const { stdout } = await runTool(ffprobe, ['-v', 'error', ...openArgs(format), '-print_format', 'json', '-show_format', '-show_streams', file], {
    ...call.tool,
    captureStdout: true,
  });
  const info = JSON.parse(stdout) as { format?: { duration?: string }; streams?: Array<{ codec_type?: string; width?: number; height?: number; duration?: string }> };
  const video = info.streams?.find((s) => s.codec_type === 'video');
  const duration = Number(info.format?.duration ?? video?.duration ?? 0);
  return {
    duration: Number.isFinite(duration) ? duration : 0,
    width: video?.width,
    height: video?.height,
    hasAudio: Boolean(info.streams?.some((s) => s.codec_type === 'audio')),
  };
}

/**
 * Runs the call's FFmpeg (quiet, never prompting, overwriting its own outputs) confined to the call's
 * work folder. For a call that listens, its progress is the time written so far (`-progress` on stdout,
 * about twice a second) over the duration of what it makes: `duration` (seconds) when the caller knows
 * it, else the first input's, which FFmpeg itself says on stderr when not quiet (`-loglevel info`
 * without the stats line): no ffprobe run of its own, which costs a process start (about 0.3 s of CPU).
 * `onStderrLine` sees each line FFmpeg writes to stderr (the error's `stderr` keeps only its end).
 */
export function ffmpeg(call: EngineCall, args: string[], duration?: number, onStderrLine?: (line: string) => void) {
  const report = call.progress;
  const watch = onStderrLine ? { onStderrLine } : {};
  if (!report) return runTool(call.choice.installed.executable!, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], { ...call.tool, ...watch });
  let total = duration !== undefined && duration > 0 ? duration : undefined;
  const told = total === undefined;
  const lead = ['-hide_banner', '-nostdin', '-loglevel', told ? 'info' : 'error', ...(told ? ['-nostats'] : []), '-y', '-progress', 'pipe:1'];
  return runTool(call.choice.installed.executable!, [...lead, ...args], {
    ...call.tool,
    onStdoutLine: (line) => total && progressLine(line, total, report),
    ...watch,
    ...(told ? { onStderrLine: (line: string) => (onStderrLine?.(line), (total ??= inputDuration(line))) } : {}),
  });
}

/** One line of FFmpeg's `-progress` output: `out_time_us=` (`out_time_ms=` in older builds, also µs) over `duration`. */
export function progressLine(line: string, duration: number, report: (fraction: number) => void): void {
  const time = /^out_time_(?:us|ms)=(\d+)$/.exec(line.trim());
  if (time) report(Number(time[1]) / 1e6 / duration);
}

/** The seconds of FFmpeg's `  Duration: 00:01:02.50, start: …` line (an input's), if this is one with a time. */
export function inputDuration(line: string): number | undefined {
  const match = /^\s*Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?),/.exec(line);
  if (!match) return undefined;
  const seconds = Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
  return seconds > 0 ? seconds : undefined;
}

/** What the media handlers read of a task's arguments. */
export interface MediaArgs extends ResizeOptions {
  output_format?: string;
  video_codec?: string;
  audio_codec?: string;
  audio_bitrate?: number;
  crf?: number;
  preset?: string;
  fps?: number;
  /** thumbnail: how many, from `timestamp` on. */
  count?: number;
  timestamp?: number | string;
}

/** Seconds from `12.5`, `"00:01:02.5"` or `"10%"` (of `duration`). */
export function parseTimestamp(value: unknown, duration: number): number {
  if (typeof value === 'number') return value;
  const text = String(value ?? '0').trim();
  if (text.endsWith('%')) return (duration * Number.parseFloat(text)) / 100;
  return text.split(':').reduce((total, part) => total * 60 + Number.parseFloat(part || '0'), 0);
}

/** thumbnail: `count` frames from `timestamp` on (evenly spread to the end), as png, jpg or webp. */
export async function videoThumbnails(call: EngineCall<MediaArgs>): Promise<EngineResult> {
  const [input] = call.inputs;
  const p = call.payload;
  const to = normalizeFormat(String(p.output_format));
  const info = await probe(call, input!.path, input!.format);
  const count = p.count ?? 1;
  const last = Math.max(0, info.duration - 0.05);
  const start = Math.min(Math.max(0, parseTimestamp(p.timestamp, info.duration)), last);
  if (info.duration > 0 && parseTimestamp(p.timestamp, info.duration) > info.duration) {
    throw new EngineFailure('INVALID_INPUT', `The timestamp ${p.timestamp} is past the end of the video (${info.duration.toFixed(2)} s).`);
  }
  const step = count > 1 ? (last - start) / count : 0;
  const names = call.names(to, count);
  const produced: Produced[] = [];
  for (let i = 0; i < count; i++) {
    const at = start + i * step;
    const frame = path.join(call.dir, `frame-${i}.png`);
    // -ss before -i seeks by keyframe index, then decodes only to the exact time.
    await ffmpeg(call, ['-ss', at.toFixed(3), ...inputArgs(input!.path, input!.format), '-frames:v', '1', '-an', frame]);
    const out = call.output(names[i]!);
    await thumbnailFile(frame, out, to, { width: p.width, height: p.height, fit: p.fit }, call.config.MAX_IMAGE_PIXELS);
    produced.push({ path: out, filename: names[i]!, contentType: mimeType(to) });
    call.progress?.((i + 1) / count);
  }
  return { files: produced };
}

/** watermark: a video with the watermark over every frame; the sound is copied. */
export async function watermarkVideo(call: EngineCall<WatermarkSpec>, watermarkImagePath?: string): Promise<EngineResult> {
  const [input] = call.inputs;
  const spec = call.payload as WatermarkSpec;
  const format = input!.format!;
  const info = await probe(call, input!.path, format);
  if (!info.width || !info.height) throw new EngineFailure('INVALID_INPUT', `${input!.filename} has no video stream.`);
  const canvas = { width: info.width, height: info.height };
  const available = Math.max(1, canvas.width - 2 * (spec.margin_horizontal ?? 25));
  const mark = await fitInside(await renderWatermark(spec, { availableWidth: available, image: watermarkImagePath, limit: call.config.MAX_IMAGE_PIXELS }), canvas);
  const at = placement(spec, canvas, mark);
  const png = path.join(call.dir, 'watermark.png');
  await writeFile(png, mark.png);
  const [name] = call.names(format, 1);
  const out = call.output(name!);
  const defaults = MEDIA_OUTPUTS[format] ?? MEDIA_OUTPUTS.mp4!;
  await ffmpeg(call, [
    ...inputArgs(input!.path, format),
    ...inputArgs(png, 'png'),
    '-filter_complex',
    `[0:v][1:v]overlay=${at.left}:${at.top}:format=auto`,
    '-map_metadata',
    '0',
    ...videoCodecArgs(call.choice.installed.executable!, defaults.video!, { crf: 20 }),
    ...(info.hasAudio ? ['-c:a', 'copy'] : ['-an']),
    ...(format === 'mp4' || format === 'mov' ? ['-movflags', '+faststart'] : []),
    out,
  ], info.duration);
  return { files: [{ path: out, filename: name!, contentType: mimeType(format) }] };
}
