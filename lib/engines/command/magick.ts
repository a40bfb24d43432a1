/**
 * ImageMagick and GraphicsMagick for the `command` operation (found by lib/engines/core/magick-detect.ts):
 * the defence under the argument check (magick-arguments.ts).
 *
 * Defence in depth, for a coder or an option the parser let through by mistake:
 * - ImageMagick reads a policy.xml of ours (MAGICK_CONFIGURE_PATH, written into the call's folder for
 *   each run): every coder refused, then the allowlisted ones enabled (the last matching rule wins),
 *   every delegate (external program) refused, `@file` indirection refused, and resource limits (width,
 *   height, area, memory, map, disk, time, frames). The system's own policy still applies beside it.
 * - GraphicsMagick has no policy file: only its primary coders (MAGICK_CODER_STABILITY=PRIMARY leaves
 *   out MSL, MVG, TEXT, URL, EPHEMERAL and the like) and the same resource limits (MAGICK_LIMIT_*).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineConfig } from '../../kernel/config.js';
import { MAGICK_POLICY_CODERS } from './magick-allowlist.js';

/** The resource limits both tools run under. */
function limits(settings: Pick<EngineConfig, 'MAX_IMAGE_PIXELS'>) {
  return { width: 32_768, height: 32_768, area: settings.MAX_IMAGE_PIXELS, memoryMiB: 512, mapMiB: 1024, diskMiB: 2048, seconds: 300, frames: 256 };
}

/** Our policy.xml (see the top of this module). */
export function magickPolicy(settings: Pick<EngineConfig, 'MAX_IMAGE_PIXELS'>): string {
  const l = limits(settings);
  return [
    '<policymap>',
    '  <policy domain="coder" rights="none" pattern="*" />',
    `  <policy domain="coder" rights="read|write" pattern="{${MAGICK_POLICY_CODERS.join(',')}}" />`,
    '  <policy domain="delegate" rights="none" pattern="*" />',
    '  <policy domain="filter" rights="none" pattern="*" />',
    '  <policy domain="path" rights="none" pattern="@*" />',
    `  <policy domain="resource" name="width" value="${l.width}" />`,
    `  <policy domain="resource" name="height" value="${l.height}" />`,
    `  <policy domain="resource" name="area" value="${l.area}" />`,
    `  <policy domain="resource" name="memory" value="${l.memoryMiB}MiB" />`,
    `  <policy domain="resource" name="map" value="${l.mapMiB}MiB" />`,
    `  <policy domain="resource" name="disk" value="${l.diskMiB}MiB" />`,
    `  <policy domain="resource" name="time" value="${l.seconds}" />`,
    `  <policy domain="resource" name="list-length" value="${l.frames}" />`,
    '</policymap>',
    '',
  ].join('\n');
}

/** ImageMagick's environment for a run: our policy written into `dir` (inside the confined work folder). */
export async function imageMagickEnvironment(settings: Pick<EngineConfig, 'MAX_IMAGE_PIXELS'>, dir: string): Promise<Record<string, string>> {
  const configure = path.join(dir, '.magick-policy');
  await mkdir(configure, { recursive: true });
  await writeFile(path.join(configure, 'policy.xml'), magickPolicy(settings));
  return { MAGICK_CONFIGURE_PATH: configure };
}

/** GraphicsMagick's environment: primary coders only, and the resource limits. */
export function graphicsMagickEnvironment(settings: Pick<EngineConfig, 'MAX_IMAGE_PIXELS'>): Record<string, string> {
  const l = limits(settings);
  return {
    MAGICK_CODER_STABILITY: 'PRIMARY',
    MAGICK_LIMIT_WIDTH: String(l.width),
    MAGICK_LIMIT_HEIGHT: String(l.height),
    MAGICK_LIMIT_PIXELS: String(l.area),
    MAGICK_LIMIT_MEMORY: `${l.memoryMiB}MB`,
    MAGICK_LIMIT_MAP: `${l.mapMiB}MB`,
    MAGICK_LIMIT_DISK: `${l.diskMiB}MB`,
    MAGICK_LIMIT_FILES: '64',
  };
}
