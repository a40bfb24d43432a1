/**
 * The `command` operation (lib/engines/command/command.ts): the argument check that task creation runs
 * (pure: what is refused and what passes, as an attacker would try it), and real ffprobe and ffmpeg
 * runs on a task's files: output captured with the API's names instead of this machine's paths,
 * files written to /output/ returned, failures explained, disguised playlists refused before FFmpeg
 * opens them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandArgumentError, parseCommandArguments, runCommand, splitArguments, validateCommand, type CommandArgs } from '#lib/engines/command/command.js';
import { EngineFailure } from '#lib/engines/core/errors.js';
import { colourVideo } from '../fixtures/engine-fixtures.js';
import { engineCall, type HandCall, type TestInput } from '../support/engine-call.js';
import { commandOffered, engine, requires } from '../support/requires.js';

const INPUTS = ['import-1', 'task-id-42'];

function refusal(args: string, command = 'ffmpeg'): CommandArgumentError {
  try {
    parseCommandArguments(args, INPUTS, command);
  } catch (err) {
    expect(err).toBeInstanceOf(CommandArgumentError);
    return err as CommandArgumentError;
  }
  throw new Error(`not refused: ${args}`);
}

describe('command arguments: splitting', () => {
  it('splits words like a shell, quotes and backslashes included, expanding nothing', () => {
    expect(splitArguments(`-i /input/import-1/a.mp4  -vf "scale=iw/2:-1, fps=1" -metadata title='Ada $HOME' a\\ b ""`)).toEqual([
      '-i',
      '/input/import-1/a.mp4',
      '-vf',
      'scale=iw/2:-1, fps=1',
      '-metadata',
      'title=Ada $HOME',
      'a b',
      '',
    ]);
    expect(splitArguments(`"say \\"hi\\"" 'it''s'`)).toEqual(['say "hi"', 'its']);
  });

  it.each([
    ['an unclosed quote', `-vf 'scale=1:1`],
    ['a pipe', '-i /input/import-1/a.mp4 | nc host 1'],
    ['a redirection', '-i /input/import-1/a.mp4 > /output/x'],
    ['a command substitution', '$(cat /etc/passwd)'],
    ['a backtick', '`id`'],
    ['a sequence', '-version; id'],
    ['a control character', '-i\u0000/etc/passwd'],
  ])('refuses %s, naming arguments', (_, args) => {
    expect(() => splitArguments(args)).toThrow(CommandArgumentError);
    expect(refusal(args).field).toBe('arguments');
  });
});

describe('command arguments: what reaches files', () => {
  it('maps /input/<task>/<file> (by task name or id) and /output/<file>', () => {
    const words = parseCommandArguments('-i /input/import-1/clip.mp4 -i /input/task-id-42/logo.png -filter_complex overlay=10:10 /output/out.mp4', INPUTS);
    expect(words.filter((w) => w.kind !== 'text')).toEqual([
      { kind: 'input', task: 'import-1', file: 'clip.mp4', text: '/input/import-1/clip.mp4' },
      { kind: 'input', task: 'task-id-42', file: 'logo.png', text: '/input/task-id-42/logo.png' },
      { kind: 'output', file: 'out.mp4', text: '/output/out.mp4' },
    ]);
  });

  it('passes ordinary FFmpeg work: filters with divisions and colons, stream specifiers, lavfi sources, patterns', () => {
    for (const args of [
      '-i /input/import-1/a.mp4 -ss 00:00:05 -t 3 -c:v libx264 -crf 23 -vf "scale=trunc(iw/2)*2:-2,fps=10" -c:a aac -b:a 128k /output/b.mp4',
      '-i /input/import-1/a.mp4 -map 0:v:0 -an -frames:v 1 -q:v 2 /output/still.jpg',
      '-f lavfi -i testsrc=d=2:s=64x64 -f lavfi -i sine=d=2 -shortest /output/t.mp4',
      '-i /input/import-1/a.mp4 -vf fps=1 /output/frame-%03d.png',
      '-i /input/import-1/a.mp4 -filter_complex "[0:v]split[a][b];[a][b]hstack" -y /output/wide.mp4',
      '-i /input/import-1/a.mp4 -af "volume=0.5,atempo=1.25" -vn /output/a.mp3',
      '-i /input/import-1/a.mp4 -metadata title="The title" -c copy /output/c.mkv',
    ]) {
      expect(() => parseCommandArguments(args, INPUTS), args).not.toThrow();
    }
    expect(() => parseCommandArguments('-v error -show_format -show_streams -of json /input/import-1/a.mp4', INPUTS, 'ffprobe')).not.toThrow();
  });

  it.each([
    ['another absolute path', '-i /input/import-1/a.mp4 /etc/passwd'],
    ['an absolute input', '-i /etc/passwd /output/x.mp4'],
    ['a parent folder', '-i /input/import-1/a.mp4 ../x.mp4'],
    ['a parent folder inside /input/', '-i /input/import-1/../../etc/passwd /output/x'],
    ['a parent folder inside /output/', '-i /input/import-1/a.mp4 /output/../x.mp4'],
    ['a folder under /output/', '-i /input/import-1/a.mp4 /output/sub/x.mp4'],
    ['an unknown input task', '-i /input/other-task/a.mp4 /output/x.mp4'],
    ['an input folder without a file', '-i /input/import-1 /output/x.mp4'],
    ['-i of a relative name', '-i a.mp4 /output/x.mp4'],
    ['an http URL', '-i http://127.0.0.1/ /output/x.mp4'],
    ['an https URL as output', '-i /input/import-1/a.mp4 -f mpegts https://example.com/up'],
    ['the file protocol', '-i file:/etc/passwd /output/x'],
    ['the file protocol, relative', '-i /input/import-1/a.mp4 -f mp4 file:x.mp4'],
    ['the concat protocol', "-i 'concat:a.mp4|b.mp4' /output/x.mp4"],
    ['the data protocol', '-i data:text/plain,aGk= /output/x.txt'],
    ['the pipe protocol', '-i /input/import-1/a.mp4 -f mp4 pipe:1'],
    ['standard output', '-i /input/import-1/a.mp4 -f mp4 -'],
    ['the tcp protocol', '-i /input/import-1/a.mp4 -f mpegts tcp:127.0.0.1:9'],
    ['the udp protocol', '-i /input/import-1/a.mp4 -f mpegts udp:127.0.0.1:9'],
    ['rtmp', '-i /input/import-1/a.mp4 -f flv rtmp:host/app'],
    ['subfile', '-i subfile,,start,0,end,0,,:/etc/passwd /output/x'],
    ['crypto+file', '-i crypto+file:x /output/x'],
    ['an upper-case protocol', '-i /input/import-1/a.mp4 -f mp4 FILE:x.mp4'],
    ['a lavfi movie source', '-f lavfi -i movie=/etc/passwd /output/x.mp4'],
    ['a lavfi movie source by relative name', '-f lavfi -i movie=secret.mp4 /output/x.mp4'],
    ['a lavfi amovie source', "-f lavfi -i 'amovie=x.wav' /output/x.mp3"],
    ['the subtitles filter', '-i /input/import-1/a.mp4 -vf subtitles=/etc/passwd /output/x.mp4'],
    ['the subtitles filter, relative', '-i /input/import-1/a.mp4 -vf subtitles=subs.srt /output/x.mp4'],
    ['the ass filter', '-i /input/import-1/a.mp4 -vf "ass=x.ass" /output/x.mp4'],
    ['drawtext textfile', "-i /input/import-1/a.mp4 -vf drawtext=textfile=notes.txt:x=0:y=0 /output/x.mp4"],
    ['drawtext fontfile', "-i /input/import-1/a.mp4 -vf \"drawtext=text='hi':fontfile=f.ttf\" /output/x.mp4"],
    ['an escaped absolute path in a filter', '-i /input/import-1/a.mp4 -vf "drawtext=text=x:textfile=\\/etc\\/passwd" /output/x.mp4'],
    ['a filter in a complex graph', '-i /input/import-1/a.mp4 -filter_complex "[0:v]null[a];movie=x.mp4[b];[a][b]overlay" /output/x.mp4'],
    ['sendcmd', '-i /input/import-1/a.mp4 -vf sendcmd=f=cmds.txt,null /output/x.mp4'],
    ['zmq (listens)', '-i /input/import-1/a.mp4 -vf zmq,null /output/x.mp4'],
    ['frei0r (loads plugins)', '-i /input/import-1/a.mp4 -vf frei0r=distort0r /output/x.mp4'],
    ['psnr stats_file', '-i /input/import-1/a.mp4 -i /input/import-1/a.mp4 -lavfi psnr=stats_file=s.log -f null x'],
    ['metadata file', '-i /input/import-1/a.mp4 -vf metadata=mode=print:file=m.txt /output/x.mp4'],
    ['-filter_script', '-i /input/import-1/a.mp4 -filter_script /etc/x /output/x.mp4'],
    ['-filter_script with a stream specifier', '-i /input/import-1/a.mp4 -filter_script:v graph.txt /output/x.mp4'],
    ['-filter_complex_script', '-i /input/import-1/a.mp4 -filter_complex_script g.txt /output/x.mp4'],
    ['an option read from a file (-/)', '-i /input/import-1/a.mp4 -/vf graph.txt /output/x.mp4'],
    ['-report', '-report -i /input/import-1/a.mp4 /output/x.mp4'],
    ['-attach', '-i /input/import-1/a.mp4 -attach font.ttf /output/x.mkv'],
    ['-dump_attachment', '-dump_attachment:t "" -i /input/import-1/a.mkv /output/x.mkv'],
    ['-progress', '-progress progress.txt -i /input/import-1/a.mp4 /output/x.mp4'],
    ['-vstats_file', '-vstats_file v.log -i /input/import-1/a.mp4 /output/x.mp4'],
    ['-passlogfile', '-i /input/import-1/a.mp4 -pass 1 -passlogfile p /output/x.mp4'],
    ['-protocol_whitelist', '-protocol_whitelist file,http -i /input/import-1/a.mp4 /output/x.mp4'],
    ['-safe 0', '-f concat -safe 0 -i /input/import-1/list.txt /output/x.mp4'],
    ['-f concat', '-f concat -i /input/import-1/list.txt /output/x.mp4'],
    ['-f hls', '-f hls -i /input/import-1/list.m3u8 /output/x.mp4'],
    ['-f x11grab', '-f x11grab -i /input/import-1/a.mp4 /output/x.mp4'],
    ['-f tee', "-i /input/import-1/a.mp4 -f tee '/output/x.mp4|[f=mpegts]udp:h:1'"],
    ['-y onto a system path', '-i /input/import-1/a.mp4 -y /etc/cron.d/x'],
    ['-init_hw_device', '-init_hw_device vaapi=va:dri -i /input/import-1/a.mp4 /output/x.mp4'],
    ['-listen', '-listen 1 -i /input/import-1/a.mp4 /output/x.mp4'],
  ])('refuses %s, naming arguments', (_, args) => {
    const err = refusal(args);
    expect(err.field).toBe('arguments');
    expect(err.message.length).toBeGreaterThan(20);
  });

  it('refuses ffprobe writing elsewhere and probing a lavfi movie', () => {
    expect(refusal('-o report.json /input/import-1/a.mp4', 'ffprobe').field).toBe('arguments');
    expect(refusal('-f lavfi movie=x.mp4', 'ffprobe').field).toBe('arguments');
    expect(refusal('-v error /etc/passwd', 'ffprobe').field).toBe('arguments');
    // -f after the input would make ffprobe read the task file's path as a filtergraph.
    expect(refusal('/input/import-1/a.mp4 -f lavfi', 'ffprobe').field).toBe('arguments');
    expect(refusal('/input/import-1/a.mp4 /input/import-1/a.mp4', 'ffprobe').field).toBe('arguments');
  });

  it('refuses ImageMagick and GraphicsMagick tricks: @files, pipes, coders, scripts', () => {
    for (const args of [
      '@/etc/passwd /output/x.png',
      'label:@notes.txt /output/x.png',
      "'|id' /output/x.png",
      'msl:/input/import-1/x.msl',
      'text:notes.txt /output/x.png',
      'ephemeral:/input/import-1/a.png /output/x.png',
      'https://example.com/a.png /output/x.png',
      '/input/import-1/a.png -script s.txt /output/x.png',
      '/input/import-1/a.png -write /tmp/x.png /output/x.png',
    ]) {
      expect(refusal(args, 'convert').field, args).toBe('arguments');
    }
    expect(() => parseCommandArguments('-size 64x64 xc:white /input/import-1/a.png -composite -resize 50% /output/x.png', INPUTS, 'convert')).not.toThrow();
    expect(refusal('batch cmds.txt', 'gm').field).toBe('arguments');
    expect(() => parseCommandArguments('convert /input/import-1/a.png -resize 10x10 /output/b.png', INPUTS, 'gm')).not.toThrow();
  });

  it('names the field of a wrong engine or command', () => {
    expect(() => validateCommand({ engine: 'bash', command: 'sh', arguments: '' }, INPUTS)).toThrow(expect.objectContaining({ field: 'engine' }));
    expect(() => validateCommand({ engine: 'ffmpeg', command: 'sh', arguments: '' }, INPUTS)).toThrow(expect.objectContaining({ field: 'command' }));
    expect(() => validateCommand({ engine: 'ffmpeg', command: 'ffprobe', arguments: '-i /etc/passwd' }, INPUTS)).toThrow(expect.objectContaining({ field: 'arguments' }));
  });
});

// The command operation runs only where it is offered: fully confined (bubblewrap).
const media = requires(engine('ffmpeg'), commandOffered());

media.describe('command on the task files', () => {
  let video: Buffer;
  const calls: HandCall<CommandArgs>[] = [];
  media.beforeAll(() => {
    video = colourVideo();
  });
  afterAll(() => {
    for (const c of calls) c.remove();
  });

  function call(payload: CommandArgs, inputs: TestInput[] = [{ filename: 'clip.mp4', data: video, format: 'mp4', taskName: 'import-1' }]) {
    const c = engineCall<CommandArgs>('ffmpeg', 'command', payload, inputs);
    calls.push(c);
    return c;
  }

  it('ffprobe on an input gives its output, with the API’s names rather than this machine’s paths', async () => {
    const c = call({ engine: 'ffmpeg', command: 'ffprobe', arguments: '-v error -show_format -show_streams -of json /input/import-1/clip.mp4', capture_output: true });
    const result = await runCommand(c.call);
    expect(result.files).toEqual([]);
    const output = String(result.metadata!.output);
    const info = JSON.parse(output) as { format: { filename: string; duration: string }; streams: Array<{ codec_type: string; width?: number }> };
    expect(Number(info.format.duration)).toBeCloseTo(10, 0);
    expect(info.streams.find((s) => s.codec_type === 'video')).toMatchObject({ width: 320 });
    expect(info.format.filename).toBe('/input/import-1/clip.mp4');
    expect(output).not.toContain(c.workDir);
  });

  it('ffmpeg converts an input (named by its task id) into /output/, and returns that file only', async () => {
    const c = call({ engine: 'ffmpeg', command: 'ffmpeg', arguments: '-i /input/task-1/clip.mp4 -t 2 -vn -c:a libmp3lame -b:a 64k /output/sound.mp3 -ss 5 -i /input/task-1/clip.mp4 -map 1:v -frames:v 1 /output/still.png' }, [
      { filename: 'clip.mp4', data: video, format: 'mp4' },
    ]);
    const result = await runCommand(c.call);
    expect(result.metadata).toBeUndefined();
    expect(result.files.map((f) => [f.filename, f.contentType])).toEqual([
      ['sound.mp3', 'audio/mpeg'],
      ['still.png', 'image/png'],
    ]);
    const mp3 = readFileSync(result.files[0]!.path);
    expect(mp3.length).toBeGreaterThan(8000);
    expect(mp3.length).toBeLessThan(40_000);
    // At 5 s the video is green.
    const png = readFileSync(result.files[1]!.path);
    const { data } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect(data[1]!).toBeGreaterThan(200);
    expect(data[0]!).toBeLessThan(50);
  });

  it('a failing command fails the task with the tool’s last words, paths shown as the API names them', async () => {
    // An MP4 read as WAV: FFmpeg says the data is invalid.
    const c = call({ engine: 'ffmpeg', command: 'ffmpeg', arguments: '-f wav -i /input/import-1/clip.mp4 /output/x.mp3' });
    const err = await runCommand(c.call).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineFailure);
    expect(err).toMatchObject({ code: 'CONVERSION_FAILED', message: expect.stringContaining('ffmpeg failed (exit code') });
    expect((err as Error).message).toMatch(/\/input\/import-1\/clip\.mp4: Invalid data/);
    expect((err as Error).message).not.toContain(c.workDir);
  });

  it('a file of another input task name is an input error naming the files there are', async () => {
    const c = call({ engine: 'ffmpeg', command: 'ffprobe', arguments: '/input/import-1/other.mp4' });
    await expect(runCommand(c.call)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: 'The input task import-1 has no file other.mp4; its files: clip.mp4.' });
  });

  it.each([
    ['an HLS playlist naming a system file', '#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n/etc/passwd\n#EXT-X-ENDLIST\n'],
    ['a concat list', 'ffconcat version 1.0\nfile /etc/passwd\n'],
    ['a concat list without header', "file '/etc/passwd'\n"],
    ['a playlist behind a byte-order mark and blanks', '\uFEFF\n  #EXTM3U\n#EXTINF:1,\nfile:///etc/passwd\n'],
  ])('refuses %s disguised as a video before FFmpeg opens it', async (_, text) => {
    const c = call({ engine: 'ffmpeg', command: 'ffmpeg', arguments: '-i /input/import-1/clip.mp4 -c copy -f data /output/x.bin', capture_output: true }, [
      { filename: 'clip.mp4', data: Buffer.from(text), format: 'mp4', taskName: 'import-1' },
    ]);
    await expect(runCommand(c.call)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(readdirOut(c)).toEqual([]);
  });

  it('an output by a relative name is refused before the tool runs: outputs are /output/<file>', async () => {
    const c = call({ engine: 'ffmpeg', command: 'ffmpeg', arguments: '-i /input/import-1/clip.mp4 -t 1 -an stray.mp4 -t 1 -an /output/kept.mp4' });
    await expect(runCommand(c.call)).rejects.toMatchObject({ name: 'CommandArgumentError', field: 'arguments', message: expect.stringContaining('"stray.mp4"') });
    expect(readdirOut(c)).toEqual([]);
  });
});

function readdirOut(c: HandCall<CommandArgs>): string[] {
  return readdirSync(path.join(c.call.dir, 'out'));
}
