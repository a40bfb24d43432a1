/**
 * The `command` operation: a raw tool invocation as the file API has it (`engine`, `command`,
 * `arguments`, `capture_output`): `ffmpeg` and `ffprobe` of the ffmpeg engine, ImageMagick's
 * `convert`/`identify` (`magick`) and GraphicsMagick's `gm` where installed.
 *
 * The arguments are one string, split as a shell would split words (quotes and backslashes) but with
 * no shell: nothing is expanded, redirected or piped. Files are named as the API names them:
 * `/input/<input task name or id>/<file name>` for an input file (after `-i`) and `/output/<file name>`
 * for a file to make (where FFmpeg takes an output); each becomes the local path of that file. The
 * words are then read as FFmpeg reads them (command-arguments.ts: options with their arities and stream
 * specifiers, filtergraphs unescaped at both of FFmpeg's levels, command-graph.ts) and accepted only
 * when every option, format, codec, filter and filter key is in the allowlist (command-allowlist.ts)
 * and no value names a path, a URL or a protocol; anything else is a `CommandArgumentError` (a 422
 * naming `arguments`).
 *
 * The check is pure (no tool is run), so task creation refuses bad arguments at once
 * (`validateCommand`), and this handler checks again. It is not the only guard: `command` is offered
 * only where the tool runs fully confined (bubblewrap: the task's work folder only, no network) or
 * where the platform isolates it (confine.ts `argumentsRefused`), FFmpeg opens inputs through the
 * `file` protocol only, and an input that is a playlist, a concat list or a manifest in disguise
 * (wherever FFmpeg's probe would find it) is refused before the run.
 */
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCall, EngineResult, LocalFile, Produced } from '../core/call.js';
import { EngineFailure } from '../core/errors.js';
import { formatOfFilename, mimeType } from '../core/formats.js';
import { ffprobeExecutable } from '../core/shipped.js';
import { graphicsMagickTool, imageMagickTool, magickSibling } from '../core/magick-detect.js';
import { graphicsMagickEnvironment, imageMagickEnvironment } from './magick.js';
import { MAGICK_TOOLS } from './magick-allowlist.js';
import { runTool, ToolError, type ToolResult } from '../core/tool.js';

export * from './command-arguments.js';
import { familyOf, isOption, MAX_CAPTURED_OUTPUT, optionName, validateCommand, type CommandArgs, type CommandWord } from './command-arguments.js';

/** The executable and leading arguments of a command here. */
async function executable(call: EngineCall<CommandArgs>, words: readonly CommandWord[]): Promise<{ file: string; lead: string[]; env?: Record<string, string>; skip?: number }> {
  const { command } = call.payload;
  const missing = (what: string) => new EngineFailure('ENGINE_UNAVAILABLE', `${what} is not installed here.`);
  if (command === 'ffmpeg') {
    const file = call.choice.engine === 'ffmpeg' ? call.choice.installed.executable : undefined;
    if (!file) throw missing('ffmpeg');
    return { file, lead: ['-hide_banner', '-nostdin'] };
  }
  if (command === 'ffprobe') {
    const file = await ffprobeExecutable(call.config);
    if (!file) throw missing('ffprobe');
    return { file, lead: ['-hide_banner'] };
  }
  if (command === 'gm') {
    const gm = graphicsMagickTool(call.config);
    if ('missing' in gm) throw missing('GraphicsMagick');
    return { file: gm.file, lead: [], env: graphicsMagickEnvironment(call.config) };
  }
  const magick = imageMagickTool(call.config);
  if ('missing' in magick) throw missing('ImageMagick');
  const env = await imageMagickEnvironment(call.config, call.dir);
  if (magick.major >= 7) return { file: magick.file, lead: command === 'magick' ? [] : [command], env };
  // ImageMagick 6 has one executable per tool; `magick` there is `convert`, or the tool its first word names.
  const first = words[0]?.kind === 'text' ? words[0].value : '';
  const tool = command === 'magick' ? (MAGICK_TOOLS.has(first) ? first : 'convert') : command;
  const file = magickSibling(magick, tool);
  if (!file) throw missing(`ImageMagick's ${tool}`);
  return { file, lead: [], env, ...(command === 'magick' && tool === first ? { skip: 1 } : {}) };
}

/** First bytes of text formats FFmpeg would follow to other files (playlists, concat lists, manifests). */
const REFERENCE_LISTS = ['#EXTM3U', '#EXT-X-', 'ffconcat', '<?xml', '<MPD', 'v=0', '[playlist]'];
/**
 * What FFmpeg's probes look for anywhere in the bytes they see (up to 1 MiB): a DASH manifest (`<MPD`
 * with a DASH profile) and an IMF composition playlist. Either opens the files it names (`file:` URLs
 * too), so a manifest after a comment or a blank line is as much a list of other files as one at the start.
 */
const PROBE_WINDOW = 1 << 20;
const isReferenceListAnywhere = (lower: string) =>
  (lower.includes('<mpd') && (lower.includes('dash:profile') || lower.includes('3gpp:pss:profile'))) || lower.includes('<compositionplaylist');

async function checkInputContent(file: LocalFile): Promise<void> {
  const handle = await open(file.path, 'r');
  try {
    const head = Buffer.alloc(PROBE_WINDOW);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const window = head.subarray(0, bytesRead).toString('latin1');
    const text = window.slice(0, 256).replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart();
    const ffconcat = text.startsWith('file ');
    if (ffconcat || REFERENCE_LISTS.some((marker) => text.startsWith(marker)) || isReferenceListAnywhere(window.toLowerCase())) {
      throw new EngineFailure('INVALID_INPUT', `${file.filename} is a playlist or a list of other files; command reads media files only.`);
    }
  } finally {
    await handle.close();
  }
}

/** Local paths back to the names the arguments used, in what is shown to the user. */
function mapPaths(text: string, call: EngineCall, inputs: Map<string, string>): string {
  let mapped = text;
  for (const [local, name] of inputs) mapped = mapped.split(local).join(name);
  mapped = mapped.split(`${path.dirname(call.output('x'))}/`).join('/output/');
  return mapped.split(call.tool.workDir).join('/work');
}

/** command: the tool on the task's files; outputs are what it wrote to /output/, `output` what it said. */
export async function runCommand(call: EngineCall<CommandArgs>): Promise<EngineResult> {
  const p = call.payload;
  // Discovery does not offer `command` without full confinement (catalog.ts); a task routed here anyway stops.
  const refusedHere = call.tool.confinement.argumentsRefused;
  if (refusedHere) throw new EngineFailure('ENGINE_UNAVAILABLE', `${refusedHere}.`);
  const names = [...new Set(call.inputs.flatMap((f) => [f.taskId, ...(f.taskName ? [f.taskName] : [])]))];
  const checked = validateCommand(p, names);
  const tool = await executable(call, checked);
  const words = checked.slice(tool.skip ?? 0);
  const family = familyOf(p.command);

  const used = new Map<string, string>();
  const args: string[] = [...tool.lead];
  for (const [i, word] of words.entries()) {
    if (word.kind === 'text') {
      args.push(word.value);
      continue;
    }
    if (word.kind === 'output') {
      // ImageMagick and GraphicsMagick are told each file's coder (magick-arguments.ts).
      args.push(`${word.coder ? `${word.coder}:` : ''}${call.output(word.file)}`);
      continue;
    }
    const file = call.inputs.find((f) => (f.taskName === word.task || f.taskId === word.task) && f.filename === word.file);
    if (!file) {
      const files = call.inputs.filter((f) => f.taskName === word.task || f.taskId === word.task).map((f) => f.filename);
      throw new EngineFailure('INVALID_INPUT', `The input task ${word.task} has no file ${word.file}${files.length ? `; its files: ${files.join(', ')}` : ''}.`);
    }
    if (family === 'ffmpeg') {
      await checkInputContent(file);
      // Only the file protocol for this input and whatever it opens (a given -f stays just before -i).
      const before = i > 0 && words[i - 1]!.kind === 'text' && optionName((words[i - 1] as { value: string }).value) === 'i' && isOption((words[i - 1] as { value: string }).value);
      if (before) args.splice(args.length - 1, 0, '-protocol_whitelist', 'file');
      else if (p.command === 'ffprobe') args.splice(tool.lead.length, 0, '-protocol_whitelist', 'file');
    }
    used.set(file.path, word.text);
    args.push(word.coder ? `${word.coder}:${file.path}${word.frames ?? ''}` : file.path);
  }

  const outDir = path.dirname(call.output('x'));
  let run: ToolResult;
  try {
    run = await runTool(tool.file, args, {
      ...call.tool,
      captureStdout: true,
      keepOutput: MAX_CAPTURED_OUTPUT,
      okExitCodes: Array.from({ length: 255 }, (_, n) => n + 1),
      name: p.command,
      ...(tool.env ? { env: tool.env } : {}),
    });
  } catch (err) {
    if (err instanceof ToolError) throw new EngineFailure('CONVERSION_FAILED', `${p.command} could not be run: ${err.message}.`, { cause: err });
    throw err;
  }
  const { stdout, stderr, exitCode } = run;
  const truncated = run.truncated ?? false;
  if (exitCode !== 0) {
    const said = mapPaths(stderr || stdout, call, used)
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .slice(-4)
      .join(' | ')
      .slice(0, 600);
    throw new EngineFailure('CONVERSION_FAILED', `${p.command} failed (exit code ${exitCode})${said ? `: ${said}` : ''}`);
  }

  const files: Produced[] = [];
  for (const name of (await readdir(outDir)).sort()) {
    const file = path.join(outDir, name);
    if (!(await stat(file)).isFile()) continue;
    const format = formatOfFilename(name);
    files.push({ path: file, filename: name, ...(format ? { contentType: mimeType(format) } : {}) });
  }
  if (!p.capture_output) return { files };
  const output = mapPaths([stdout, stderr].filter(Boolean).join(stdout.endsWith('\n') || !stdout ? '' : '\n'), call, used);
  return { files, metadata: { output: truncated ? `${output}\n[output cut at ${MAX_CAPTURED_OUTPUT} characters]` : output } };
}
