/**
 * The `command` operation's arguments, checked without running anything (task creation refuses bad
 * ones at once with `validateCommand`; the engine checks them again before its run, lib/engines/command.ts):
 * the words split as a shell would split them, without a shell, and every word that could reach
 * anything but the task's own files refused. See command.ts for what is refused and why.
 */
import { isSafeFilename } from '../files/names.js';

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
export type CommandWord = { kind: 'text'; value: string } | { kind: 'input'; task: string; file: string; text: string } | { kind: 'output'; file: string; text: string };

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

/** FFmpeg's protocols (and a few more URL schemes), refused wherever they start a name. */
const PROTOCOLS = new Set(
  (
    'async bluray cache concat concatf crypto data fd ffrtmpcrypt ffrtmphttp file ftp gopher gophers hls http httpproxy https icecast ' +
    'ipfs ipns librist md5 mmsh mmst pipe prompeg rist rtmp rtmpe rtmps rtmpt rtmpte rtmpts rtp rtsp sctp smb srt srtp subfile tcp tee ' +
    'tls udp udplite unix amqp sftp zmq android_content libsmbclient libssh dav webdav ws wss ldap mailto'
  ).split(' '),
);
/** A name followed by `:` or `,` (`subfile,,start,…`) or `+` (`crypto+file:`), at the start of a word or after a non-name character. */
const SCHEME = /(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)(?=[:,+])/g;

/** FFmpeg and ffprobe options refused by name (stream specifiers and leading dashes aside). */
const FFMPEG_REFUSED_OPTIONS = new Set([
  // read their value (a file name) or write to it
  'filter_script',
  'filter_complex_script',
  'attach',
  'dump_attachment',
  'report',
  'vstats',
  'vstats_file',
  'passlogfile',
  'progress',
  'sdp_file',
  'stats_enc_pre',
  'stats_enc_post',
  'stats_mux_pre',
  'print_graphs_file',
  'o',
  // devices and hardware
  'init_hw_device',
  'filter_hw_device',
  'hwaccel_device',
  'qsv_device',
  'vaapi_device',
  // what may be opened, and the network
  'enable_drefs', // QuickTime data references: tracks whose samples are in other files
  'use_absolute_path', // … named by absolute path
  'protocol_whitelist',
  'protocol_blacklist',
  'safe',
  'allowed_extensions',
  'allowed_segment_extensions',
  'extension_picky',
  'listen',
  'http_proxy',
  'cookies',
  'headers',
  'user_agent',
  'method',
]);

/** Formats (`-f`) that follow references in a file, or are devices. */
const FFMPEG_REFUSED_FORMATS = new Set(
  (
    'concat hls applehttp dash imf webm_dash_manifest sdp rtp rtsp rtp_mpegts tee fifo fifo_test avisynth vapoursynth alsa pulse oss jack ' +
    'sndio openal v4l2 video4linux2 x11grab xcbgrab fbdev kmsgrab decklink libcdio iec61883 dv1394 libdc1394 caca sdl sdl2 opengl xv ' +
    'android_camera dshow avfoundation gdigrab vfwcap lavfi_file'
  ).split(' '),
);

/** Filters that open files, load plugins, listen on the network or write files of their own. */
const FFMPEG_REFUSED_FILTERS = new Set(
  (
    'movie amovie subtitles ass frei0r frei0r_src ladspa lv2 sendcmd asendcmd zmq azmq lut3d removelogo cover_rect find_rect ' +
    'vidstabdetect vidstabtransform libvmaf signature dnn_processing dnn_detect dnn_classify sr derain arnndn sofalizer lensfun ocr ' +
    'libplacebo coreimage coreimagesrc qrencode qrencodesrc vapoursynth'
  ).split(' '),
);
/** Filter options that name a file. */
const FFMPEG_REFUSED_KEYS = new Set(
  'filename textfile fontfile file stats_file log_path model_path model shader_path sofa datapath object result input dumpfile'.split(' '),
);
/** The options whose value is a filter graph. */
const FILTER_OPTIONS = new Set(['vf', 'af', 'filter', 'filter_complex', 'lavfi']);
/** Names in a filter graph (or any word): a filter, or an option key before `=`. */
const GRAPH_NAME = /(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)\s*(?=$|[=,;[\]@'"\s:])/g;
const GRAPH_KEY = /(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)\s*=/g;

/** ImageMagick and GraphicsMagick: options refused, and the coders (`xc:white`) allowed. */
const MAGICK_REFUSED_OPTIONS = new Set(['script', 'process', 'remote', 'display', 'window', 'authenticate', 'debug', 'log', 'limit', 'define', 'set']);
const MAGICK_CODERS = new Set('xc canvas gradient radial-gradient pattern plasma rose logo wizard granite netscape label caption null hald'.split(' '));
/** GraphicsMagick's sub-commands allowed (not `batch`, `conjure`, `mogrify`, or the X ones). */
const GM_SUBCOMMANDS = new Set(['convert', 'identify', 'composite', 'montage', 'compare']);
/** ImageMagick 7's `magick` tools allowed as its first word. */
const MAGICK_TOOLS = new Set(['convert', 'identify', 'composite', 'montage', 'compare']);

const refused = (word: string, why: string) =>
  new CommandArgumentError('arguments', `The argument ${JSON.stringify(word.length > 80 ? `${word.slice(0, 80)}…` : word)} is refused: ${why}`);

/** The word as a reference to the task's files, or undefined when it is not one. Throws when it looks like one but is not allowed. */
function reference(word: string, inputs: readonly string[]): CommandWord | undefined {
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

/** What no argument may hold, whatever the tool: paths outside the task, parent folders, URLs, protocols. */
function checkWord(word: string): void {
  if (word === '-') throw refused(word, 'standard input and output are not available; name a file in /input/ or /output/.');
  if (holdsUrl(word)) throw refused(word, 'URLs are not opened here; import the file with an import task.');
  // A slash that starts a path: at the start, or after anything but a name, a number or a closing bracket (`iw/2` is a division).
  if (/(?:^|[^\w.)\]%-])\//.test(word) || word.includes('\\/')) throw refused(word, 'paths other than /input/<task>/<file> and /output/<file> are not reachable.');
  if (/(?:^|[/\\=:,'"])\.\.(?:$|[/\\:,'"])/.test(word)) throw refused(word, 'parent folders (..) are not reachable.');
  for (const m of word.matchAll(SCHEME)) {
    if (PROTOCOLS.has(m[1]!.toLowerCase())) throw refused(word, `the ${m[1]} protocol is not available; only the task's files are.`);
  }
}

function checkGraph(word: string): void {
  for (const m of word.matchAll(GRAPH_NAME)) {
    if (FFMPEG_REFUSED_FILTERS.has(m[1]!.toLowerCase())) throw refused(word, `the ${m[1]} filter opens files, loads plugins or listens, and is not available.`);
  }
  for (const m of word.matchAll(GRAPH_KEY)) {
    if (FFMPEG_REFUSED_KEYS.has(m[1]!.toLowerCase())) throw refused(word, `filter options that name files (${m[1]}=) are not available.`);
  }
}

/** The option's name: without its dashes and stream specifier (`-c:v` → `c`). */
export const optionName = (word: string) => word.replace(/^-+/, '').split(':')[0]!.toLowerCase();
export const isOption = (word: string) => word.length > 1 && word.startsWith('-') && !/^-[\d.]/.test(word);

/** The family of tools of a command. */
export function familyOf(command: string): Family {
  return command === 'ffmpeg' || command === 'ffprobe' ? 'ffmpeg' : 'magick';
}

/**
 * The arguments of a command, checked, with `/input/<task>/<file>` and `/output/<file>` recognised.
 * `inputs`: the names (and ids) the input tasks may be called by. Throws `CommandArgumentError`.
 */
export function parseCommandArguments(args: string, inputs: readonly string[], command = 'ffmpeg'): CommandWord[] {
  const words = splitArguments(args);
  const family = familyOf(command);
  const out: CommandWord[] = [];
  let format: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const ref = reference(word, inputs);
    const previous = i > 0 ? words[i - 1]! : undefined;
    const previousOption = previous && isOption(previous) ? optionName(previous) : undefined;
    if (family === 'ffmpeg' && previousOption === 'i' && ref?.kind !== 'input' && format !== 'lavfi') {
      throw refused(word, '-i takes an input file, /input/<input task>/<file name> (or a -f lavfi source).');
    }
    if (ref) {
      out.push(ref);
      if (previousOption === 'i') format = undefined;
      continue;
    }
    checkWord(word);
    if (family === 'ffmpeg') {
      if (word.startsWith('-/')) throw refused(word, 'options read from files (-/option) are not available.');
      if (isOption(word) && FFMPEG_REFUSED_OPTIONS.has(optionName(word))) throw refused(word, 'this option reads or writes files of its own, or reaches devices or the network.');
      if (previousOption === 'f') {
        if (FFMPEG_REFUSED_FORMATS.has(word.toLowerCase())) throw refused(word, 'this format follows references to other files, or is a device.');
        format = word.toLowerCase();
      }
      // Filter graphs: the value of a filter option, a lavfi input, and (ffprobe) anything after -f lavfi.
      if ((previousOption && FILTER_OPTIONS.has(previousOption)) || format === 'lavfi') checkGraph(word);
      if (previousOption === 'i') format = undefined;
    } else {
      if (word.includes('@')) throw refused(word, '@file arguments are not available.');
      if (word.startsWith('|')) throw refused(word, 'commands are not run.');
      if (isOption(word) && MAGICK_REFUSED_OPTIONS.has(optionName(word.replace(/^\+/, '-')))) throw refused(word, 'this option is not available.');
      const coder = /^([A-Za-z][A-Za-z0-9_-]*):/.exec(word)?.[1];
      if (coder && !MAGICK_CODERS.has(coder.toLowerCase())) throw refused(word, `the ${coder}: coder is not available; name files as /input/<task>/<file> and /output/<file>.`);
    }
    out.push({ kind: 'text', value: word });
  }
  if (command === 'gm' && !GM_SUBCOMMANDS.has(words[0] ?? '')) {
    throw new CommandArgumentError('arguments', `gm arguments start with one of ${[...GM_SUBCOMMANDS].join(', ')}.`);
  }
  if (command === 'magick' && words[0] && !words[0].startsWith('-') && !words[0].startsWith('/') && !MAGICK_TOOLS.has(words[0]) && !words[0].includes(':')) {
    throw new CommandArgumentError('arguments', `magick's first word, when a tool, is one of ${[...MAGICK_TOOLS].join(', ')}.`);
  }
  return out;
}

/** The whole check at task creation: engine, command and arguments. Throws `CommandArgumentError`. */
export function validateCommand(payload: Pick<CommandArgs, 'engine' | 'command' | 'arguments'>, inputs: readonly string[]): CommandWord[] {
  const commands = (COMMANDS as Record<string, readonly string[]>)[payload.engine];
  if (!commands) throw new CommandArgumentError('engine', `engine must be one of ${Object.keys(COMMANDS).join(', ')}.`);
  if (!commands.includes(payload.command)) throw new CommandArgumentError('command', `command for ${payload.engine} must be one of ${commands.join(', ')}.`);
  return parseCommandArguments(payload.arguments, inputs, payload.command);
}
