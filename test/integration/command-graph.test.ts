/**
 * The filtergraph parser of the `command` check (lib/engines/command/command-graph.ts) reads what FFmpeg reads:
 * FFmpeg itself is the oracle. At `-v debug` FFmpeg logs every option it sets on a filter
 * ("Setting 'key' to value 'value'", after both unescaping levels, a value without a key under its
 * option's name); each graph below, quoted and escaped in the ways FFmpeg allows, must give the same
 * filters, keys and values in the same order. And what the parser will not guess is refused.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { FILTERS } from '#lib/engines/command/command-allowlist.js';
import { GraphError, getToken, parseFilterOptions, parseGraph } from '#lib/engines/command/command-graph.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { engine, requires } from '../support/requires.js';

/** What the parser says FFmpeg sets: `index:filter:key=value`, a value without a key under the option's first name. */
function ours(graph: string): string[] {
  return parseGraph(graph).flatMap((filter, index) =>
    parseFilterOptions(filter.args ?? '').map((option) => {
      const key = 'key' in option ? option.key : FILTERS[filter.name]!.slots![option.slot]!.split('|')[0]!;
      return `${index}:${filter.name}:${key}=${option.value}`;
    }),
  );
}

/** What FFmpeg says it sets, from its debug log. */
function theirs(graph: string, audio: boolean): string[] {
  const ffmpeg = newEngineRegistry(parseEngineConfig(process.env)).installation('ffmpeg').versions[0]!.executable!;
  const run = spawnSync(ffmpeg, ['-hide_banner', '-nostdin', '-v', 'debug', '-f', 'lavfi', '-i', graph, ...(audio ? ['-t', '0.05'] : ['-frames:v', '1']), '-f', 'null', '-'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return [...run.stderr.matchAll(/^\[Parsed_([a-z0-9_]+)_(\d+) @ [^\]]+\] Setting '([^']*)' to value '([^']*)'$/gm)].map((m) => `${m[2]}:${m[1]}:${m[3]}=${m[4]}`);
}

const GRAPHS: Array<[string, string, boolean?]> = [
  ['quotes and blanks at the graph level', "color=c='re'd:s=32x32:d=0.1, scale = 16 : 16,hue='h'=90:s=0,pad=w='iw+2':h=ih\\,2"],
  ['an escaped colon inside graph-level quotes reaches the option level escaped', "color=c='blue\\:d=0.1'"],
  ['a colon escaped at the graph level separates options', 'color=c=blue\\:d=0.1'],
  ['values without keys, in the options’ order', 'color=r\\ed:32x32:5:0.1,crop=in_w/2:in_h/2:0:0'],
  ['keys after values, aliases', 'color=d=0.1,drawbox=1:2:w=5:h=5:c=red@0.5'],
  ['backslashes inside quotes, unescaped at the option level', "color=d=0.1,setpts='PTS\\\\,1'"],
  ['blanks around keys and values', 'color=d=0.1 , fps = fps = 5 : round = up'],
  ['labels and chains', '[in]null[a];color=d=0.1[x];[x]scale=w=32:h=-2:flags=bicubic[out]'],
  ['audio', "sine=f=440:d=0.1,volume='0.5':precision=float,atempo=tempo=1.5", true],
];

const media = requires(engine('ffmpeg'));

media.describe('the filtergraph parser agrees with FFmpeg', () => {
  it.each(GRAPHS)('%s', (_what, graph, audio) => {
    const expected = theirs(graph, audio ?? false);
    expect(expected.length).toBeGreaterThan(0);
    expect(ours(graph)).toEqual(expected);
  });
});

describe('the filtergraph parser refuses what it would have to guess', () => {
  it.each([
    ['an unclosed quote', "scale='16:16"],
    ['a trailing backslash', 'scale=16:16\\'],
    ['an unclosed label', '[in scale=16:16'],
    ['an empty label', '[]scale=16:16'],
    ['sws_flags before the graph', 'sws_flags=bicubic;scale=16:16'],
    ['no filter name', 'scale=16:16,,null'],
    ['a stray bracket', 'scale=16:16]x'],
  ])('%s', (_what, graph) => {
    expect(() => parseGraph(graph).forEach((f) => parseFilterOptions(f.args ?? ''))).toThrow(GraphError);
  });

  it('refuses a value without a key after a keyed one (FFmpeg would give it to the first option again)', () => {
    expect(() => parseFilterOptions('text=x:secret.txt')).toThrow(GraphError);
  });

  it('unescapes a token as av_get_token does', () => {
    expect(getToken("  a\\ b' c ' d  ,e", 0, ',')).toEqual({ token: "a b c  d", end: 15 });
    expect(getToken('x\\  ,', 0, ',')).toEqual({ token: 'x ', end: 4 });
  });
});
