/**
 * Class 8 of issue 10 (ffmpeg's inputs), for the `command` operation, where the arguments are the
 * user's: FFmpeg reads each input as media, never as a list of other files. Its probes find a DASH
 * manifest (`<MPD` with a DASH profile) or an IMF composition playlist anywhere in the first megabyte,
 * and those demuxers open the files they name (`file:` URLs pass `-protocol_whitelist file`), so a
 * manifest behind a comment, blank lines or padding is refused before FFmpeg runs, like one at the
 * start. QuickTime data references (tracks whose samples live in other files) cannot be switched on,
 * and the IMF demuxer cannot be forced.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandArgumentError, runCommand, validateCommand, type CommandArgs } from '#lib/engines/command/command.js';
import { engineCall, type HandCall, type TestInput } from '../support/engine-call.js';
import { commandOffered, engine, requires } from '../support/requires.js';

const INPUTS = ['import-1'];

describe('command arguments that would make FFmpeg follow references', () => {
  it.each([
    ['QuickTime data references', '-enable_drefs 1 -i /input/import-1/clip.mov /output/x.wav'],
    ['data references by absolute path', '-use_absolute_path 1 -enable_drefs 1 -i /input/import-1/clip.mov /output/x.wav'],
    ['data references with a stream specifier and two dashes', '--enable_drefs:0 1 -i /input/import-1/clip.mov /output/x.wav'],
    ['the IMF demuxer forced', '-f imf -i /input/import-1/clip.mp4 /output/x.wav'],
    ['the DASH demuxer forced, in capitals', '-f DASH -i /input/import-1/clip.mp4 /output/x.wav'],
  ])('refuses %s with a 422 on arguments', (_label, args) => {
    let error: unknown;
    try {
      validateCommand({ engine: 'ffmpeg', command: 'ffmpeg', arguments: args }, INPUTS);
    } catch (err) {
      error = err;
    }
    expect(error, args).toBeInstanceOf(CommandArgumentError);
    expect((error as CommandArgumentError).field).toBe('arguments');
  });
});

// The command operation runs these inputs, where it is offered: fully confined (bubblewrap).
const commands = requires(engine('ffmpeg'), commandOffered());

commands.describe('inputs that are manifests in disguise', () => {
  // A file outside every work folder that a manifest names.
  const outside = mkdtempSync(path.join(tmpdir(), 'ffmpeg-references-'));
  const target = path.join(outside, 'secret.wav');
  writeFileSync(target, Buffer.alloc(1024));
  const calls: HandCall<CommandArgs>[] = [];
  afterAll(() => {
    for (const c of calls) c.remove();
    rmSync(outside, { recursive: true, force: true });
  });

  const dash = (prefix: string) =>
    `${prefix}<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011" type="static" ` +
    `mediaPresentationDuration="PT1S" minBufferTime="PT1S"><Period><AdaptationSet mimeType="audio/mp4"><Representation id="a" ` +
    `bandwidth="64000" codecs="mp4a.40.2"><BaseURL>file:${target}</BaseURL></Representation></AdaptationSet></Period></MPD>\n`;
  const imf =
    '<!-- cpl -->\n<CompositionPlaylist xmlns="http://www.smpte-ra.org/schemas/2067-3/2016"><Id>urn:uuid:0</Id>' +
    `<ContentTitle>x</ContentTitle><SegmentList><Segment><SequenceList><MainAudioSequence><ResourceList><Resource>` +
    `<TrackFileId>file:${target}</TrackFileId></Resource></ResourceList></MainAudioSequence></SequenceList></Segment></SegmentList></CompositionPlaylist>\n`;

  it.each([
    ['a DASH manifest behind a comment', dash('<!-- innocent -->\n')],
    ['a DASH manifest behind blank lines, in lower case', dash('\n\n\n').replace('<MPD', '<mpd').replace('</MPD>', '</mpd>')],
    ['a DASH manifest behind 4 KB of padding', dash(`<!-- ${'x'.repeat(4096)} -->\n`)],
    ['a DASH manifest behind a byte-order mark and a comment', dash('\uFEFF<!-- bom -->')],
    ['an IMF composition playlist behind a comment', imf],
  ])('refuses %s before FFmpeg opens it, and nothing is written', async (_label, text) => {
    const inputs: TestInput[] = [{ filename: 'clip.mp4', data: Buffer.from(text), format: 'mp4', taskName: 'import-1' }];
    const c = engineCall<CommandArgs>('ffmpeg', 'command', { engine: 'ffmpeg', command: 'ffmpeg', arguments: '-i /input/import-1/clip.mp4 -y /output/out.wav' }, inputs);
    calls.push(c);
    await expect(runCommand(c.call)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(readdirSync(path.join(c.call.dir, 'out'))).toEqual([]);
  });
});
