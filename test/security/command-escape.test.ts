/**
 * Finding 1 of issue 25: `command` must not reach any file but its task's own, whatever the spelling.
 * FFmpeg unescapes a filtergraph twice after the argument check (graph level: quotes and backslashes
 * around names and arguments; option level: the same again in each value), follows references in
 * formats and protocols, and has options that read or write files. Each variant below aims at a marker
 * file outside the task folder (random content) and is
 *
 * - refused by `validateCommand` (the 422 at task creation, naming `arguments`), and
 * - run for real through the engine's path (runCommand, as the media function runs it), once under the
 *   confinement this machine gives and once under `platform` (nothing added: the parser alone must
 *   hold, as in a deployment whose isolation is elsewhere): the marker's bytes appear in no output file
 *   and in nothing the tool said, and the marker is neither written, truncated nor joined by new files.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { CommandArgumentError, runCommand, validateCommand, type CommandArgs } from '#lib/engines/command/command.js';
import { confinement } from '#lib/engines/core/confine.js';
import { engineBannerLines } from '../../local/engine-setup.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { command as commandOperation } from '#lib/file-api/operations/command/operation.js';
import { colourVideo } from '../fixtures/engine-fixtures.js';
import { engineCall, type HandCall } from '../support/engine-call.js';
import { commandOffered, engine, requires } from '../support/requires.js';

const INPUTS = ['import-1'];
const MARKER = `marker-${randomBytes(16).toString('hex')}`;
const outside = mkdtempSync(path.join(tmpdir(), 'command-escape-'));
const secret = path.join(outside, 'secret.txt');
writeFileSync(secret, `${MARKER}\n`.repeat(64));
const before = { content: readFileSync(secret), mtime: statSync(secret).mtimeMs };

// The task's tool starts in <tmp>/engine-call-*/call-1 (test/support/engine-call.ts), so this reaches the marker.
const rel = `../../${path.basename(outside)}/secret.txt`;
const abs = secret;
/** `..` hidden from a word check, unescaped by FFmpeg at the graph level: `.''.` and `.\.`. */
const quoted = (p: string) => p.replaceAll('..', ".''.");
const backslashed = (p: string) => p.replaceAll('..', '.\\.');
/** … at the option level, after the graph level: `.\\.` (graph → `.\.`, option → `..`) and `.\'\'.` (graph → `.''.`, option → `..`). */
const twiceBackslashed = (p: string) => p.replaceAll('..', '.\\\\.');
const graphQuotesOptionQuotes = (p: string) => p.replaceAll('..', ".\\'\\'.");
const IN = '-i /input/import-1/clip.mp4';

/** [what, command, arguments], as the API takes them: words split like a shell's (in '…' a backslash stays, in "…" a quote ' stays). */
const VARIANTS: Array<[string, 'ffmpeg' | 'ffprobe', string]> = [
  // The filtergraph's two escaping levels.
  ['amovie behind graph-level quotes (the reported read)', 'ffmpeg', `-f lavfi -i "amo''vie=${quoted(rel)}:f=u8" -f u8 /output/p.txt`],
  ['amovie behind graph-level backslashes', 'ffmpeg', `-f lavfi -i 'amo\\vie=${backslashed(rel)}:f=u8' -f u8 /output/p.txt`],
  ['amovie with its path unescaped at the option level (double backslash)', 'ffmpeg', `-f lavfi -i 'am\\ovie=${twiceBackslashed(rel)}:f=u8' -f u8 /output/p.txt`],
  ["amovie with \\' at the graph level, '' at the option level", 'ffmpeg', `-f lavfi -i "am\\ovie=${graphQuotesOptionQuotes(rel)}:f=u8" -f u8 /output/p.txt`],
  ['amovie with its key named (filename=) behind quotes', 'ffmpeg', `-f lavfi -i "amo''vie=file''name=${quoted(rel)}:f=u8" -f u8 /output/p.txt`],
  ['amovie through the file: protocol escaped at the option level', 'ffmpeg', `-f lavfi -i 'amo\\vie=fi\\le\\\\:${backslashed(rel)}:f=u8' -f u8 /output/p.txt`],
  ['metadata print writing a file behind quotes (the reported truncation)', 'ffmpeg', `-f lavfi -i color=d=0.2 -vf "metadata=mode=print:fi''le=${quoted(rel)}" -f null /output/n`],
  ['ametadata print writing a file behind backslashes', 'ffmpeg', `-f lavfi -i sine=d=0.2 -af 'ametadata=mode=print:fi\\le=${backslashed(rel)}' -f null /output/n`],
  // Aliases of the filter options.
  ['-filter_complex with amovie', 'ffmpeg', `-filter_complex "amo''vie=${quoted(rel)}:f=u8[a]" -map "[a]" -f u8 /output/p.txt`],
  ['-lavfi with amovie', 'ffmpeg', `-lavfi "amo''vie=${quoted(rel)}:f=u8[a]" -map "[a]" -f u8 /output/p.txt`],
  ['-filter:a with amovie mixed in', 'ffmpeg', `-f lavfi -i sine=d=1 -filter:a "[0:a]anull[m];amo''vie=${quoted(rel)}:f=u8[s];[m][s]amix" -f u8 /output/p.txt`],
  ['-filter:v with movie overlaid', 'ffmpeg', `${IN} -filter:v "[in]null[m];mo''vie=${quoted(rel)}[s];[m][s]overlay" -t 1 /output/v.mp4`],
  // Filter keys that name files.
  ['drawtext textfile= behind a backslash', 'ffmpeg', `${IN} -vf 'drawtext=textf\\ile=${backslashed(rel)}' -frames:v 1 /output/t.png`],
  ['drawtext fontfile given positionally', 'ffmpeg', `${IN} -vf "drawtext=${quoted(rel)}:text=x" -frames:v 1 /output/t.png`],
  ['ssim stats_file= behind quotes', 'ffmpeg', `${IN} ${IN} -lavfi "ssim=stats_f''ile=${quoted(rel)}" -f null /output/n`],
  ['psnr stats_file= given plainly', 'ffmpeg', `${IN} ${IN} -lavfi "psnr=stats_file=${quoted(rel)}" -f null /output/n`],
  ['subtitles behind quotes', 'ffmpeg', `${IN} -vf "sub''titles=${quoted(rel)}" -t 1 /output/v.mp4`],
  ['sendcmd reading commands behind quotes', 'ffmpeg', `${IN} -vf "se''ndcmd=f=${quoted(rel)},null" -t 1 /output/v.mp4`],
  ['paletteuse debug_kdtree= (writes a file) behind quotes', 'ffmpeg', `${IN} -t 1 -filter_complex "[0:v]split[a][b];[a]palettegen[p];[b][p]paletteuse=debug_kd''tree=${quoted(rel)}" /output/a.gif`],
  ['a value without a key after a keyed one (FFmpeg gives it to fontfile)', 'ffmpeg', `${IN} -vf "drawtext=text=x:${quoted(rel)}" -frames:v 1 /output/t.png`],
  ['drawtext font= as a fontconfig pattern naming a file', 'ffmpeg', `${IN} -vf "drawtext=text=x:font='Sans\\:file=${quoted(rel)}'" -frames:v 1 /output/t.png`],
  ['lut3d given its file positionally, behind quotes', 'ffmpeg', `${IN} -vf "lut''3d=${quoted(rel)}" -t 1 /output/v.mp4`],
  // Options that name files.
  ['-filter_script:v', 'ffmpeg', `${IN} -filter_script:v ${rel} /output/v.mp4`],
  ['-report', 'ffmpeg', `-report ${IN} /output/v.mp4`],
  ['-passlogfile', 'ffmpeg', `${IN} -c:v libx264 -pass 1 -passlogfile ${rel} -f null /output/n`],
  ['-x264-params stats=', 'ffmpeg', `${IN} -c:v libx264 -x264-params pass=1:stats=${rel} -f null /output/n`],
  ['-attach', 'ffmpeg', `${IN} -attach ${rel} -metadata:s:t mimetype=text/plain /output/v.mkv`],
  ['-dump_attachment', 'ffmpeg', `-dump_attachment:t ${rel} ${IN} /output/v.mkv`],
  ['-progress', 'ffmpeg', `-progress ${rel} ${IN} /output/v.mp4`],
  ['-vstats_file', 'ffmpeg', `-vstats_file ${rel} ${IN} /output/v.mp4`],
  ['-sdp_file', 'ffmpeg', `${IN} -sdp_file ${rel} /output/v.mp4`],
  ['an option read from a file (-/filter)', 'ffmpeg', `${IN} -/filter:v ${rel} /output/v.mp4`],
  ['an abbreviated option name (-vstats_f)', 'ffmpeg', `-vstats_f ${quoted(rel)} ${IN} /output/v.mp4`],
  ['an abbreviated option name (-filter_scr)', 'ffmpeg', `${IN} -filter_scr ${quoted(rel)} /output/v.mp4`],
  // Formats that follow references, or write lists of their own.
  ['-f concat with -safe 0', 'ffmpeg', `-f concat -safe 0 -i /input/import-1/clip.mp4 /output/v.mp4`],
  ['-f hls output with a key info file', 'ffmpeg', `${IN} -f hls -hls_key_info_file ${rel} /output/v.m3u8`],
  ['-f dash output', 'ffmpeg', `${IN} -f dash /output/v.mpd`],
  ['image2 with a glob pattern', 'ffmpeg', `-pattern_type glob -i '/input/import-1/*.mp4' /output/v.mp4`],
  ['the tee muxer', 'ffmpeg', `${IN} -f tee -map 0 "[f=mp4]/output/v.mp4|[f=u8]${rel}"`],
  ['segment with a list file', 'ffmpeg', `${IN} -f segment -segment_list ${rel} /output/s%d.mp4`],
  ['-f sdp (an input naming streams elsewhere)', 'ffmpeg', `-f sdp -i /input/import-1/clip.mp4 /output/v.mp4`],
  ['-f lavfi with -graph_file', 'ffmpeg', `-f lavfi -graph_file ${rel} -i x /output/v.mp4`],
  // Devices.
  ['-f v4l2', 'ffmpeg', `-f v4l2 -i /input/import-1/clip.mp4 /output/v.mp4`],
  ['-f x11grab', 'ffmpeg', `-f x11grab -i :0 /output/v.mp4`],
  // Protocols.
  ['-i file:', 'ffmpeg', `-f u8 -i file:${rel} -f u8 /output/p.txt`],
  ['-i subfile,,', 'ffmpeg', `-f u8 -i 'subfile,,start,0,end,0,,:${abs}' -f u8 /output/p.txt`],
  ['-i concat:', 'ffmpeg', `-f u8 -i 'concat:${abs}|${abs}' -f u8 /output/p.txt`],
  ['-i data:', 'ffmpeg', `-f u8 -i data:text/plain,aGk= -f u8 /output/p.txt`],
  ['-i pipe:', 'ffmpeg', `-f u8 -i pipe:0 -f u8 /output/p.txt`],
  ['-i fd:', 'ffmpeg', `-f u8 -i fd:0 -f u8 /output/p.txt`],
  ['-i http:', 'ffmpeg', `-f u8 -i http://127.0.0.1:9/x -f u8 /output/p.txt`],
  ['an output through file:', 'ffmpeg', `${IN} -f u8 file:${rel}`],
  // -i given what is not a task file.
  ['-i of an absolute path', 'ffmpeg', `-f u8 -i ${abs} -f u8 /output/p.txt`],
  ['-i of a relative path', 'ffmpeg', `-f u8 -i ${rel} -f u8 /output/p.txt`],
  ['-i of a task path climbing out', 'ffmpeg', `-f u8 -i /input/import-1/../../${path.basename(outside)}/secret.txt -f u8 /output/p.txt`],
  // Look-alikes and control characters.
  ['a Cyrillic о in amovie', 'ffmpeg', `-f lavfi -i "amоvie=${quoted(rel)}:f=u8" -f u8 /output/p.txt`],
  ['a Cyrillic і in -filter_script', 'ffmpeg', `${IN} -fіlter_script ${rel} /output/v.mp4`],
  ['a zero-width space in a filter name', 'ffmpeg', `-f lavfi -i "amo\u200bvie=${quoted(rel)}:f=u8" -f u8 /output/p.txt`],
  ['a NUL byte after a task file', 'ffmpeg', `-i /input/import-1/clip.mp4\u0000${rel} /output/v.mp4`],
  ['a newline inside a filter graph', 'ffmpeg', `-f lavfi -i "color,\namo''vie=${quoted(rel)}" /output/v.mp4`],
  // ffprobe.
  ['ffprobe of a lavfi amovie behind quotes', 'ffprobe', `-f lavfi "amo''vie=${quoted(rel)}:f=u8" -show_packets -show_data`],
  ['ffprobe of a relative path', 'ffprobe', `-f u8 -show_packets -show_data ${rel}`],
];

/** Pieces of the marker: any 12 characters of it as text, or any 6 of its bytes in hex (a hex dump). */
const PIECES = [...Array(MARKER.length - 11).keys()].map((i) => MARKER.slice(i, i + 12));
const HEX_PIECES = [...Array(MARKER.length - 5).keys()].map((i) => Buffer.from(MARKER.slice(i, i + 6)).toString('hex'));
const leaks = (bytes: Buffer | string) => {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('latin1');
  const lower = text.toLowerCase().replaceAll(/\s/g, '');
  return PIECES.some((p) => text.includes(p)) || HEX_PIECES.some((p) => lower.includes(p));
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe('command escape variants: refused at task creation', () => {
  it(`has at least 25 variants (${VARIANTS.length})`, () => {
    expect(VARIANTS.length).toBeGreaterThanOrEqual(25);
  });

  it.each(VARIANTS)('refuses %s (a 422 naming arguments)', (_what, command, args) => {
    // CommandArgumentError is what the error middleware answers with 422 and errors.arguments.
    expect(() => validateCommand({ engine: 'ffmpeg', command, arguments: args }, INPUTS)).toThrow(CommandArgumentError);
    expect(() => validateCommand({ engine: 'ffmpeg', command, arguments: args }, INPUTS)).toThrow(expect.objectContaining({ field: 'arguments' }));
    // The operation's schema (task creation) turns it into its one issue, on `arguments`.
    const parsed = commandOperation.schema.safeParse({ engine: 'ffmpeg', command, arguments: args, input: INPUTS });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['arguments']);
  });
});

const media = requires(engine('ffmpeg'));
/** This machine confines the tool fully (bubblewrap that works): the command operation is offered. */
const confined = requires(engine('ffmpeg'), commandOffered());

media.describe('command is offered only where the tool runs fully confined, or the platform isolates it', () => {
  const absent = { BWRAP_PATH: '/nonexistent/bwrap', UNSHARE_PATH: '/nonexistent/unshare' };
  const registry = (env: Record<string, string>) => newEngineRegistry(parseEngineConfig({ ...process.env, ...env }));

  it.each([
    ['no confinement found (none)', absent],
    ['ENGINE_CONFINEMENT=none', { ENGINE_CONFINEMENT: 'none' }],
    ['ENGINE_CONFINEMENT=unshare', { ENGINE_CONFINEMENT: 'unshare' }],
  ])('%s: command is left out of discovery and a task gets a clear error, FFmpeg still converts', (_what, env) => {
    const r = registry(env);
    const place = confinement(parseEngineConfig({ ...process.env, ...env }));
    if (place.unavailable) return expect(r.isAvailable('ffmpeg')).toBe(false); // unshare cannot run here: no FFmpeg at all
    expect(r.isAvailable('ffmpeg')).toBe(true);
    expect(r.rows().filter((row) => row.operation === 'command')).toEqual([]);
    expect(r.rows().some((row) => row.operation === 'convert' && row.engine === 'ffmpeg')).toBe(true);
    const problems = r.check('command', { engine: 'ffmpeg' });
    expect(problems).toEqual([{ field: 'engine', message: expect.stringMatching(/^command is not offered on this installation: .*apt-get install bubblewrap/) }]);
    expect(engineBannerLines(r).join('\n')).toMatch(/not offered with ffmpeg: the command operation runs only fully confined .*apt-get install bubblewrap.*ENGINE_CONFINEMENT=platform/);
  });

  const offered = (env: Record<string, string>) => {
    const r = registry(env);
    expect(r.rows().some((row) => row.operation === 'command' && row.engine === 'ffmpeg')).toBe(true);
    expect(r.check('command', { engine: 'ffmpeg' })).toEqual([]);
    expect(engineBannerLines(r).join('\n')).not.toMatch(/not offered/);
  };
  confined.it('bubblewrap (this machine): command is offered', () => offered({}));
  it('ENGINE_CONFINEMENT=platform (the deployed media function): command is offered', () => offered({ ...absent, ENGINE_CONFINEMENT: 'platform' }));

  it('a task run where it is not offered stops before the tool runs', async () => {
    const c = engineCall<CommandArgs>('ffmpeg', 'command', { engine: 'ffmpeg', command: 'ffmpeg', arguments: '-f lavfi -i color=d=1 /output/x.mp4' }, [], { ENGINE_CONFINEMENT: 'none' });
    try {
      await expect(runCommand(c.call)).rejects.toMatchObject({ code: 'ENGINE_UNAVAILABLE', message: expect.stringMatching(/apt-get install bubblewrap/) });
      expect(readdirSync(path.join(c.call.dir, 'out'))).toEqual([]);
    } finally {
      c.remove();
    }
  });
});

media.describe('command escape variants: run through the engine, the marker outside the task is neither read nor written', () => {
  let video: Buffer;
  const calls: HandCall<CommandArgs>[] = [];
  beforeAll(() => {
    video = colourVideo();
  });
  afterAll(() => {
    for (const c of calls) c.remove();
    rmSync(outside, { recursive: true, force: true });
  });

  it.each(VARIANTS.flatMap(([what, command, args]) => (['this machine', 'platform'] as const).map((place) => [what, place, command, args] as const)))(
    '%s, confined as %s',
    async (_what, place, command, args) => {
      const c = engineCall<CommandArgs>(
        'ffmpeg',
        'command',
        { engine: 'ffmpeg', command, arguments: args, capture_output: true },
        [{ filename: 'clip.mp4', data: video, format: 'mp4', taskName: 'import-1' }],
        place === 'platform' ? { ENGINE_CONFINEMENT: 'platform' } : {},
      );
      calls.push(c);
      let said: string;
      try {
        const result = await runCommand(c.call);
        said = String(result.metadata?.output ?? '');
      } catch (err) {
        said = (err as Error).message;
      }
      expect(leaks(said), 'what the tool said holds the marker').toBe(false);
      for (const file of filesUnder(c.workDir)) expect(leaks(readFileSync(file)), `${file} holds the marker`).toBe(false);
      expect(readFileSync(secret).equals(before.content), 'the marker was written').toBe(true);
      expect(statSync(secret).mtimeMs, 'the marker was touched').toBe(before.mtime);
      expect(readdirSync(outside), 'files appeared beside the marker').toEqual(['secret.txt']);
    },
  );

  // A variant that got through must not make the next ones fail: the marker is put back as it was.
  afterEach(() => {
    for (const name of readdirSync(outside)) if (name !== 'secret.txt') rmSync(path.join(outside, name), { recursive: true, force: true });
    if (!readFileSync(secret).equals(before.content) || statSync(secret).mtimeMs !== before.mtime) {
      writeFileSync(secret, before.content);
      utimesSync(secret, before.mtime / 1000, before.mtime / 1000);
      before.mtime = statSync(secret).mtimeMs;
    }
  });
});
