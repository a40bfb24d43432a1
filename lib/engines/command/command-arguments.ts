/**
 * The `command` operation's arguments, checked without running anything (task creation refuses bad
 * ones at once with `validateCommand`; the engine checks them again before its run, lib/engines/command/command.ts):
 * the words split as a shell would split them, without a shell, then read as the tool reads them
 * (FFmpeg's options with their arities and stream specifiers, its filtergraphs unescaped at both levels,
 * command-graph.ts) and accepted only when every option, format, codec, filter and filter key is in the
 * allowlist (command-allowlist.ts) and every file is the task's own. See command.ts.
 */
import { isSafeFilename } from '../../adapters/file-store/names.js';
import {
  CODEC_PATTERN,
  CODECS,
  FFMPEG_OPTIONS,
  FFPROBE_OPTIONS,
  FFPROBE_WRITERS,
  FILTER_COMMON_KEYS,
  FILTERS,
  INPUT_FORMATS,
  OUTPUT_EXTENSIONS,
  OUTPUT_FORMATS,
  type ValueKind,
} from './command-allowlist.js';
import { GraphError, parseFilterOptions, parseGraph } from './command-graph.js';
import { parseMagick } from './magick-arguments.js';

/** The commands of each engine, as the API names them. */
export const COMMANDS = {
  ffmpeg: ['ffmpeg', 'ffprobe'],
  imagemagick: ['convert', 'identify', 'magick'],
  graphicsmagick: ['gm'],
} as const satisfies Record<string, readonly string[]>;
export type CommandEngine = keyof typeof COMMANDS;
type Family = 'ffmpeg' | 'magick';

/** What the `command` handler reads of a task's arguments. */
export interface CommandArgs {
  engine: string;
  command: string;
  arguments: string;
  /** Give the tool's output (stdout, then stderr) back as the result's `output`. */
  capture_output?: boolean;
}

/** The argument string at most (characters), and the words in it. */
export const MAX_ARGUMENTS_LENGTH = 10_000;
export const MAX_WORDS = 500;
/** Captured output at most (characters of stdout and of stderr each). */
export const MAX_CAPTURED_OUTPUT = 100_000;

/** Arguments refused: the field and why, for a 422 (`errors: { [field]: [message] }`). */
export class CommandArgumentError extends Error {
  override readonly name = 'CommandArgumentError';
  constructor(
    readonly field: 'engine' | 'command' | 'arguments',
    message: string,
  ) {
    super(message);
  }
}

/** One argument: plain text, an input file of an input task, or a file to make. */
export type CommandWord =
  | { kind: 'text'; value: string }
  | { kind: 'input'; task: string; file: string; text: string; coder?: string; frames?: string }
  | { kind: 'output'; file: string; text: string; coder?: string };

/** Words as a POSIX shell splits them (blanks; '…' literal; "…" with \" \\ \$ \` escapes; \x outside quotes), nothing expanded. */
export function splitArguments(text: string): string[] {
  if (text.length > MAX_ARGUMENTS_LENGTH) throw new CommandArgumentError('arguments', `arguments is longer than ${MAX_ARGUMENTS_LENGTH} characters.`);
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const refuse = (why: string) => new CommandArgumentError('arguments', why);
  while (i < text.length) {
    const c = text[i]!;
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(c)) throw refuse('arguments holds a control character.');
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw refuse('arguments has a quote (\') that is not closed.');
      word += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw refuse('arguments has a quote (") that is not closed.');
        const d = text[i]!;
        if (d === '"') break;
        if (d === '\\' && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1]!)) {
          if (text[i + 1] !== '\n') word += text[i + 1];
          i += 2;
        } else {
          word += d;
          i++;
        }
      }
      inWord = true;
      i++;
    } else if (c === '\\') {
      if (i + 1 < text.length && text[i + 1] !== '\n') {
        word += text[i + 1];
        inWord = true;
      }
      i += 2;
    } else if ('|&;<>()$`'.includes(c)) {
      throw refuse(`arguments are not run by a shell: ${c} has no meaning here (quote it if the tool should see it).`);
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  if (words.length > MAX_WORDS) throw refuse(`arguments has more than ${MAX_WORDS} words.`);
  return words;
}

/** FFmpeg's protocols (and a few more URL schemes): a value naming one (`file:`, `subfile,`, `crypto+`) is refused. */
const PROTOCOLS = new Set(
  (
    'async bluray cache concat concatf crypto data fd ffrtmpcrypt ffrtmphttp file ftp gopher gophers hls http httpproxy https icecast ' +
    'ipfs ipns librist md5 mmsh mmst pipe prompeg rist rtmp rtmpe rtmps rtmpt rtmpte rtmpts rtp rtsp sctp smb srt srtp subfile tcp tee ' +
    'tls udp udplite unix amqp sftp zmq android_content libsmbclient libssh dav webdav ws wss ldap mailto'
  ).split(' '),
);
/** A name followed by `:` or `,` (`subfile,,start,…`) or `+` (`crypto+file:`), at the start of a word or after a non-name character. */
const SCHEME = /(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)(?=[:,+])/g;

const shown = (word: string) => JSON.stringify(word.length > 80 ? `${word.slice(0, 80)}…` : word);
export const refused = (word: string, why: string) => new CommandArgumentError('arguments', `The argument ${shown(word)} is refused: ${why}`);

/** The word as a reference to the task's files, or undefined when it is not one. Throws when it looks like one but is not allowed. */
export function reference(word: string, inputs: readonly string[]): CommandWord | undefined {
  if (word.startsWith('/output/')) {
    const file = word.slice('/output/'.length);
    if (!isSafeFilename(file) || file.includes('/')) throw refused(word, 'an output is /output/<file name>, with no folder.');
    return { kind: 'output', file, text: word };
  }
  if (word.startsWith('/input/')) {
    const rest = word.slice('/input/'.length);
    const slash = rest.indexOf('/');
    const task = slash < 0 ? rest : rest.slice(0, slash);
    const file = slash < 0 ? '' : rest.slice(slash + 1);
    if (!inputs.includes(task)) {
      throw refused(word, `an input is /input/<input task>/<file name>, and the input tasks are ${inputs.length ? inputs.join(', ') : 'none'}.`);
    }
    if (!isSafeFilename(file) || file.includes('/')) throw refused(word, 'an input is /input/<input task>/<file name>.');
    return { kind: 'input', task, file, text: word };
  }
  return undefined;
}

/**
 * Whether `word` holds `scheme://` (a letter, then letters, digits, `+ . -`, just before `://`).
 * A loop: the regular expression `[a-z][a-z0-9+.-]*:\/\/` tries every start in a long run of
 * letters, quadratic in the word's length.
 */
function holdsUrl(word: string): boolean {
  const schemeChar = (c: string) => /[a-z0-9+.-]/i.test(c);
  for (let at = word.indexOf('://'); at >= 0; at = word.indexOf('://', at + 1)) {
    for (let i = at - 1; i >= 0 && schemeChar(word[i]!); i--) if (/[a-z]/i.test(word[i]!)) return true;
  }
  return false;
}

/**
 * A free value (a metadata value, a filter's text or expression), as the tool will see it: refused
 * when it names a path, a URL or a protocol. `iw/2` is a division; `/x`, `a /x`, `../x` and `x/..` are paths.
 */
function checkValue(value: string, word = value): void {
  if (holdsUrl(value)) throw refused(word, 'URLs are not opened here; import the file with an import task.');
  if (/(?:^|[\s'"=:,;|([{])\//.test(value) || value.includes('\\/')) throw refused(word, 'paths other than /input/<task>/<file> and /output/<file> are not reachable.');
  if (/(?:^|[/\\\s'"=:,;|])\.\.(?:$|[/\\\s'"=:,;|])/.test(value)) throw refused(word, 'parent folders (..) are not reachable.');
  for (const m of value.matchAll(SCHEME)) {
    if (PROTOCOLS.has(m[1]!.toLowerCase())) throw refused(word, `the ${m[1]} protocol is not available; only the task's files are.`);
  }
}

/** The option's name: without its dashes and stream specifier (`-c:v` → `c`). */
export const optionName = (word: string) => word.replace(/^-+/, '').split(':')[0]!.toLowerCase();
export const isOption = (word: string) => word.length > 1 && word.startsWith('-') && !/^-[\d.]/.test(word);

/** The family of tools of a command. */
export function familyOf(command: string): Family {
  return command === 'ffmpeg' || command === 'ffprobe' ? 'ffmpeg' : 'magick';
}

/** A filtergraph (an option's value, or a lavfi input), checked filter by filter, key by key, on what FFmpeg will see. */
function checkGraph(word: string): void {
  let filters;
  try {
    filters = parseGraph(word);
  } catch (err) {
    if (err instanceof GraphError) throw refused(word, `the filtergraph is not read unambiguously here: ${err.message}.`);
    throw err;
  }
  for (const filter of filters) {
    const rule = Object.hasOwn(FILTERS, filter.name) ? FILTERS[filter.name]! : undefined;
    if (!rule) throw refused(word, `the filter ${shown(filter.name)} is not available (filters: see docs/security.md, "The command operation").`);
    for (const label of filter.labels) if (!/^[A-Za-z0-9_:.]{1,64}$/.test(label)) throw refused(word, `the link label ${shown(label)} is not a name or a stream.`);
    if (filter.args === undefined) continue;
    let options;
    try {
      options = parseFilterOptions(filter.args);
    } catch (err) {
      if (err instanceof GraphError) throw refused(word, `the options of ${filter.name} are not read unambiguously here: ${err.message}.`);
      throw err;
    }
    const slots = rule.slots ?? [];
    for (const option of options) {
      if ('slot' in option) {
        if (option.slot >= slots.length) throw refused(word, `${filter.name} takes at most ${slots.length} values without a key here; name the others (key=value).`);
      } else {
        const allowed = slots.some((s) => s.split('|').includes(option.key)) || rule.keys?.includes(option.key) || FILTER_COMMON_KEYS.includes(option.key);
        if (!allowed) throw refused(word, `${filter.name}'s option ${shown(option.key)} is not available.`);
      }
      checkValue(option.value, word);
    }
  }
}

/** Values of options, by kind (command-allowlist.ts). */
const VALUE_PATTERNS: Partial<Record<ValueKind, RegExp>> = {
  int: /^-?\d{1,10}$/,
  number: /^-?\d{1,12}(?:\.\d{1,6})?[kKMG]?$/,
  time: /^-?(?:\d{1,6}:){0,2}\d{1,9}(?:\.\d{1,9})?(?:s|ms|us)?$/,
  size: /^(?:\d{1,5}x\d{1,5}|[a-z0-9]{2,12})$/,
  rate: /^(?:\d{1,6}(?:\.\d{1,6})?(?:\/\d{1,6}(?:\.\d{1,6})?)?|[a-z]{2,12})$/,
  aspect: /^\d{1,6}(?:\.\d{1,6})?(?:[:/]\d{1,6}(?:\.\d{1,6})?)?$/,
  name: /^[A-Za-z0-9_.+-]{1,64}$/,
  map: /^(?:-?\d{1,3}(?::[A-Za-z0-9_.#-]{1,32}){0,4}\??|\[[A-Za-z0-9_:.]{1,64}\])$/,
  map_metadata: /^(?:-1|\d{1,3}(?::[gscp](?::[A-Za-z0-9]{1,16}){0,2})?)$/,
  metadata: /^[A-Za-z0-9_.-]{1,64}=/s,
  flags: /^[+-]?[a-z_]{1,32}(?:[+-][a-z_]{1,32}){0,16}$/,
  threads: /^(?:\d{1,3}|auto)$/,
  entries: /^[a-z_]{1,32}(?:=[A-Za-z0-9_,]{0,512})?(?::[a-z_]{1,32}(?:=[A-Za-z0-9_,]{0,512})?){0,16}$/,
  streams: /^[A-Za-z0-9_:#.]{1,32}$/,
  intervals: /^[0-9%+#.,:\s-]{1,200}$/,
};

/** One word of an option's value, checked by its kind; `format` and `input` are checked by the caller. */
function checkOptionValue(option: string, kind: ValueKind, value: string): void {
  if (kind === 'graph') return checkGraph(value);
  if (kind === 'codec') {
    if (!CODECS.has(value) && !CODEC_PATTERN.test(value)) throw refused(value, `the codec ${shown(value)} is not available with ${option}.`);
    return;
  }
  if (kind === 'writer') {
    const [writer, options] = [value.split('=')[0]!, value.slice(value.indexOf('=') + 1)];
    if (!FFPROBE_WRITERS.has(writer) || (value.includes('=') && !/^[A-Za-z0-9_=:,.|]{0,200}$/.test(options))) throw refused(value, `${option} takes one of ${[...FFPROBE_WRITERS].join(', ')}.`);
    return;
  }
  const pattern = VALUE_PATTERNS[kind];
  if (pattern && !pattern.test(value)) throw refused(value, `it is not a value ${option} takes here.`);
  if (kind === 'metadata') checkValue(value.slice(value.indexOf('=') + 1), value);
}

/** Pattern characters: FFmpeg's image2 demuxer would read other files by them. */
const PATTERN_CHARACTERS = /[%*?[\]{}]/;

/** The ffmpeg and ffprobe command line, read as their option parser reads it (fftools' cmdutils). */
function parseFfmpeg(words: readonly string[], inputs: readonly string[], command: 'ffmpeg' | 'ffprobe'): CommandWord[] {
  const table = command === 'ffmpeg' ? FFMPEG_OPTIONS : FFPROBE_OPTIONS;
  const out: CommandWord[] = [];
  // The `-f` of the file being described (options apply to the next -i or output file).
  let format: string | undefined;
  let probed = 0;

  const input = (word: string) => {
    if (format === 'lavfi') {
      checkGraph(word);
      out.push({ kind: 'text', value: word });
    } else {
      const ref = reference(word, inputs);
      if (ref?.kind !== 'input') throw refused(word, 'an input is a task file, /input/<input task>/<file name> (or a filtergraph after -f lavfi).');
      if (PATTERN_CHARACTERS.test(ref.file)) throw refused(word, 'input file names with % * ? [ ] { } would be read as patterns of other files; rename the file.');
      out.push(ref);
    }
    if (format !== undefined && !INPUT_FORMATS.has(format)) throw refused(format, `the input format ${shown(format)} is not available; formats: see docs/security.md, "The command operation".`);
    format = undefined;
  };

  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word.length < 2 || !word.startsWith('-') || word === '--') {
      if (command === 'ffprobe') {
        if (probed++) throw refused(word, 'ffprobe reads one input.');
        input(word);
        continue;
      }
      // ffmpeg: an output file (`-` only after -f null, which writes nothing).
      const ref = word === '-' && format === 'null' ? undefined : reference(word, inputs);
      if (word !== '-' || format !== 'null') {
        if (ref?.kind !== 'output') throw refused(word, 'an output is a file /output/<file name>; other words are options (see docs/security.md, "The command operation").');
        const ext = ref.file.includes('.') ? ref.file.slice(ref.file.lastIndexOf('.') + 1).toLowerCase() : '';
        if (format === undefined && !OUTPUT_EXTENSIONS.has(ext)) throw refused(word, `FFmpeg would pick its format by the extension .${ext}, which is not available; name it with -f.`);
        out.push(ref);
      } else out.push({ kind: 'text', value: word });
      if (format !== undefined && !OUTPUT_FORMATS.has(format)) throw refused(format, `the output format ${shown(format)} is not available; formats: see docs/security.md, "The command operation".`);
      format = undefined;
      continue;
    }
    // An option: -name or -name:stream_specifier, exactly as FFmpeg names it (no abbreviations, no -/name).
    const colon = word.indexOf(':');
    const name = word.slice(1, colon < 0 ? undefined : colon);
    const rule = Object.hasOwn(table, name) ? table[name]! : undefined;
    if (!rule) throw refused(word, `the option is not available (${command}'s options here: see docs/security.md, "The command operation").`);
    if (colon >= 0 && (!rule.streams || !/^[A-Za-z0-9_#.]{1,16}(?::[A-Za-z0-9_#.]{1,16}){0,4}$/.test(word.slice(colon + 1)))) {
      throw refused(word, rule.streams ? 'its stream specifier is not one FFmpeg reads here.' : 'this option takes no stream specifier.');
    }
    out.push({ kind: 'text', value: word });
    if (!rule.value) continue;
    const value = words[++i];
    if (value === undefined) throw refused(word, 'it needs a value.');
    if (rule.value === 'input') {
      input(value);
      continue;
    }
    if (rule.value === 'format') {
      if (!INPUT_FORMATS.has(value) && !OUTPUT_FORMATS.has(value)) throw refused(value, `the format ${shown(value)} is not available; formats: see docs/security.md, "The command operation".`);
      format = value;
    } else checkOptionValue(word, rule.value, value);
    out.push({ kind: 'text', value });
  }
  // A -f after the last file: ffmpeg ignores it, ffprobe would apply it to the input named before it.
  if (format !== undefined) throw refused(format, '-f comes before the file it describes.');
  return out;
}

/**
 * The arguments of a command, checked, with `/input/<task>/<file>` and `/output/<file>` recognised.
 * `inputs`: the names (and ids) the input tasks may be called by. Throws `CommandArgumentError`.
 */
export function parseCommandArguments(args: string, inputs: readonly string[], command = 'ffmpeg'): CommandWord[] {
  const words = splitArguments(args);
  // Invisible and format characters (zero-width, bidirectional, other spaces): nothing FFmpeg reads
  // needs them, and they hide what a word says. Look-alike letters need no rule: names, keys and
  // references are compared exactly with the allowlist, so `amоvie` (a Cyrillic о) is no filter here.
  for (const word of words) {
    if (/[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u.test(word)) throw refused(word, 'it holds an invisible, control or format character.');
  }
  if (command === 'ffmpeg' || command === 'ffprobe') return parseFfmpeg(words, inputs, command);
  return parseMagick(words, inputs, command);
}

/** The whole check at task creation: engine, command and arguments. Throws `CommandArgumentError`. */
export function validateCommand(payload: Pick<CommandArgs, 'engine' | 'command' | 'arguments'>, inputs: readonly string[]): CommandWord[] {
  const commands = (COMMANDS as Record<string, readonly string[]>)[payload.engine];
  if (!commands) throw new CommandArgumentError('engine', `engine must be one of ${Object.keys(COMMANDS).join(', ')}.`);
  if (!commands.includes(payload.command)) throw new CommandArgumentError('command', `command for ${payload.engine} must be one of ${commands.join(', ')}.`);
  return parseCommandArguments(payload.arguments, inputs, payload.command);
}
