/**
 * The `command` allowlist (lib/engines/command/command-allowlist.ts) keeps what CloudConvert's users run:
 * each typical command passes the check at task creation and runs for real through the engine's path,
 * giving the file it asks for. The escapes it refuses are in test/security/command-escape.test.ts.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, validateCommand, type CommandArgs } from '#lib/engines/command/command.js';
import { colourVideo } from '../fixtures/engine-fixtures.js';
import { engineCall, type HandCall } from '../support/engine-call.js';
import { commandOffered, engine, requires } from '../support/requires.js';

const IN = '-i /input/import-1/clip.mp4';

/** [what, command, arguments, files it makes]. The clip is red for 4 s, green for 2, blue for 4, 320×240, with a 440 Hz tone. */
const TYPICAL: Array<[string, 'ffmpeg' | 'ffprobe', string, string[]]> = [
  ['a transcode with codecs, bitrates, preset and scaling', 'ffmpeg', `${IN} -t 1 -c:v libx264 -preset veryfast -crf 28 -pix_fmt yuv420p -vf scale=160:-2 -c:a aac -b:a 96k -movflags +faststart /output/small.mp4`, ['small.mp4']],
  ['audio extracted to MP3', 'ffmpeg', `${IN} -vn -c:a libmp3lame -b:a 64k -ar 22050 -ac 1 /output/sound.mp3`, ['sound.mp3']],
  ['a thumbnail at 5 s', 'ffmpeg', `-ss 5 ${IN} -vf "thumbnail=n=5,scale=80:-1" -frames:v 1 -q:v 3 /output/thumb.jpg`, ['thumb.jpg']],
  [
    'a GIF with palettegen and paletteuse',
    'ffmpeg',
    `${IN} -t 1 -filter_complex "[0:v]fps=5,scale=80:-1:flags=lanczos,split[a][b];[a]palettegen=max_colors=32[p];[b][p]paletteuse=dither=bayer" -loop 0 /output/anim.gif`,
    ['anim.gif'],
  ],
  ['an overlay of two task files', 'ffmpeg', `${IN} -i /input/logo/logo.png -filter_complex "[0:v][1:v]overlay=x=W-w:y=0" -t 1 -an -c:v libx264 /output/over.mp4`, ['over.mp4']],
  ['lavfi color and sine sources', 'ffmpeg', `-f lavfi -i color=c=blue:s=64x64:d=1 -f lavfi -i "sine=frequency=880:duration=1" -shortest -c:v libx264 -pix_fmt yuv420p -c:a aac /output/made.mp4`, ['made.mp4']],
  ['trimming by seeking, stream copy', 'ffmpeg', `-ss 1 -t 2 ${IN} -c copy -map 0 /output/cut.mp4`, ['cut.mp4']],
  ['trimming with trim and atrim', 'ffmpeg', `${IN} -vf "trim=start=4:end=5,setpts=PTS-STARTPTS" -af "atrim=4:5,asetpts=PTS-STARTPTS" /output/green.mp4`, ['green.mp4']],
  ['frames as numbered images, a fade and a pad', 'ffmpeg', `${IN} -t 2 -vf "fps=1,fade=in:0:1,pad=iw+20:ih+20:10:10:black" -start_number 1 /output/frame-%02d.png`, ['frame-01.png', 'frame-02.png']],
  ['volume, loudness and raw audio', 'ffmpeg', `${IN} -t 1 -af "volume=0.5,aresample=8000" -ac 1 -f s16le /output/samples.raw`, ['samples.raw']],
  ['a null output for analysis', 'ffmpeg', `${IN} -af volumedetect -vn -f null -`, []],
  ['drawtext with text only', 'ffmpeg', `${IN} -vf "drawtext=text='Hello\\, world':x=10:y=10:fontsize=24:fontcolor=white" -frames:v 1 /output/text.png`, ['text.png']],
  ['ffprobe with entries and a CSV writer', 'ffprobe', '-v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0 /input/import-1/clip.mp4', []],
];

describe('typical command arguments pass the check at task creation', () => {
  it.each(TYPICAL)('%s', (_what, command, args) => {
    expect(() => validateCommand({ engine: 'ffmpeg', command, arguments: args }, ['import-1', 'logo'])).not.toThrow();
  });
});

// The command operation runs only where it is offered: fully confined (bubblewrap).
const media = requires(engine('ffmpeg'), commandOffered());

media.describe('typical commands run', () => {
  let video: Buffer;
  let logo: Buffer;
  const calls: HandCall<CommandArgs>[] = [];
  beforeAll(async () => {
    video = colourVideo();
    logo = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 255, g: 255, b: 0 } } }).png().toBuffer();
  });
  afterAll(() => {
    for (const c of calls) c.remove();
  });

  it.each(TYPICAL)('%s', async (_what, command, args, made) => {
    const c = engineCall<CommandArgs>('ffmpeg', 'command', { engine: 'ffmpeg', command, arguments: args, capture_output: true }, [
      { filename: 'clip.mp4', data: video, format: 'mp4', taskName: 'import-1' },
      { filename: 'logo.png', data: logo, format: 'png', taskName: 'logo' },
    ]);
    calls.push(c);
    const result = await runCommand(c.call);
    expect(result.files.map((f) => f.filename)).toEqual(made);
    for (const file of result.files) expect(readFileSync(file.path).length, file.filename).toBeGreaterThan(100);
    const output = String(result.metadata?.output ?? '');
    if (command === 'ffprobe') expect(output.trim()).toBe('320,240');
    if (args.includes('volumedetect')) expect(output).toMatch(/mean_volume: -\d/);
    if (made[0] === 'anim.gif') expect(readFileSync(result.files[0]!.path).subarray(0, 6).toString()).toBe('GIF89a');
    if (made[0] === 'over.mp4' || made[0] === 'green.mp4') {
      // The first frame: the logo (yellow) in the top right corner over red; the trimmed clip is green.
      const still = await frameOf(result.files[0]!.path);
      const { data, info } = await sharp(still).raw().toBuffer({ resolveWithObject: true });
      const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
      if (made[0] === 'over.mp4') {
        expect(at(info.width - 8, 8)[1]!).toBeGreaterThan(200);
        expect(at(8, 8)[1]!).toBeLessThan(60);
      } else expect(at(8, 8)[1]!).toBeGreaterThan(200);
    }
  });

  /** The first frame of a made video, as PNG (through the engine too). */
  async function frameOf(file: string): Promise<Buffer> {
    const again = engineCall<CommandArgs>('ffmpeg', 'command', { engine: 'ffmpeg', command: 'ffmpeg', arguments: `${IN} -frames:v 1 /output/f.png` }, [
      { filename: 'clip.mp4', data: readFileSync(file), format: 'mp4', taskName: 'import-1' },
    ]);
    calls.push(again);
    const result = await runCommand(again.call);
    return readFileSync(result.files[0]!.path);
  }
});
