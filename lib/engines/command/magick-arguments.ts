/**
 * ImageMagick's and GraphicsMagick's command lines, read as the tools read them and accepted only when
 * every word is an allowlisted option with values of its kind (magick-allowlist.ts), a task file, or
 * an image made from its own argument (`xc:white`, `label:Hello`).
 *
 * Each file gets its coder here, named to the tool (`PNG:/work/…/a.png`): both tools would otherwise
 * pick a reader by the file's bytes or extension, and a file named `a.png` holding MVG or SVG would be
 * read as a drawing that opens other files. A file's coder is its `png:` prefix, else its extension,
 * and only allowlisted ones exist. `@file` (a list of file names, or a format read from a file) is
 * refused wherever it appears, as are URLs, pipes (`|cmd`), descriptors (`fd:`) and every other path.
 */
import { CommandArgumentError, reference, refused, type CommandWord } from './command-arguments.js';
import { MAGICK_ENUMS, MAGICK_FILE_CODERS, MAGICK_GENERATORS, MAGICK_OPTIONS, MAGICK_PATTERNS, MAGICK_TOOLS, type MagickValue } from './magick-allowlist.js';

const COLOUR = /^(?:[a-z]{1,24}\d{0,3}|#[0-9a-f]{3,16}|(?:s?rgba?|hs[lb]a?|cmyka?|graya?)\([\d.%,\s]{1,64}\))$/i;
const VALUES: Partial<Record<MagickValue, RegExp>> = {
  geometry: /^(?=[^\d]*\d)[\d.]{0,10}(?:x[\d.]{0,10})?(?:[+-]\d{1,6}(?:\.\d{1,4})?){0,2}[%!<>^@#]{0,2}$/,
  number: /^[+-]?\d{1,7}(?:\.\d{1,6})?%?$/,
  int: /^\d{1,7}$/,
  colour: COLOUR,
  levels: /^(?=.*\d)[\d.%,!x+-]{1,40}$/,
  indexes: /^-?\d{1,4}(?:--?\d{1,4})?(?:,-?\d{1,4}(?:--?\d{1,4})?){0,16}$/,
  sampling: /^\d(?:x\d)?(?:,\d(?:x\d)?){0,3}$/,
};

/** An option's value, checked by its kind. */
function checkValue(option: string, kind: MagickValue, value: string | undefined, inputs: readonly string[]): CommandWord {
  if (value === undefined) throw refused(option, 'it needs a value.');
  if (kind === 'output') {
    const ref = outputFile(value, inputs);
    if (!ref) throw refused(value, `${option} writes only to /output/<file name>.`);
    return ref;
  }
  if (kind === 'format') {
    // `-format @file` reads the format from a file.
    if (value.startsWith('@') || value.length > 300) throw refused(value, `${option} takes a format string (%w %h …), not a file.`);
    return { kind: 'text', value };
  }
  const allowed = MAGICK_ENUMS[kind];
  const ok = allowed ? allowed.has(value.toLowerCase()) : VALUES[kind]!.test(value);
  if (!ok) throw refused(value, `it is not a value ${option} takes here${allowed ? ` (one of ${[...allowed].join(', ')})` : ''}.`);
  return { kind: 'text', value };
}

/** `coder:rest`, the coder in lower case, when the word starts with one (a path starts with `/`). */
function coderOf(word: string): { coder: string; rest: string } | undefined {
  const m = /^([A-Za-z0-9-]{1,24}):(.*)$/s.exec(word);
  return m ? { coder: m[1]!.toLowerCase(), rest: m[2]! } : undefined;
}

const extensionOf = (file: string) => (file.includes('.') ? file.slice(file.lastIndexOf('.') + 1).toLowerCase() : '');

/** A file to write: `[coder:]/output/<file name>`, its coder allowlisted; `%d` (one file per frame) is the only escape. */
function outputFile(word: string, inputs: readonly string[]): CommandWord | undefined {
  const prefixed = coderOf(word);
  const ref = reference(prefixed ? prefixed.rest : word, inputs);
  if (!ref) return undefined;
  if (ref.kind !== 'output') throw refused(word, 'an input task file cannot be written to.');
  if (/%(?!0?\d?d)|[[\]{}*?@]/.test(ref.file)) throw refused(word, 'output names may hold %d (a number per frame) but no other escape, pattern or @.');
  const named = prefixed?.coder ?? extensionOf(ref.file);
  const coder = Object.hasOwn(MAGICK_FILE_CODERS, named) ? MAGICK_FILE_CODERS[named] : undefined;
  if (!coder) throw refused(word, `${named ? `the format ${JSON.stringify(named)}` : 'a file without an extension'} is not written here; formats: ${Object.keys(MAGICK_FILE_CODERS).join(', ')}.`);
  return { ...ref, coder };
}

/** An image to read: a task file (with its coder and an optional frame selection `[0]`, `[1-3]`) or a generator. */
function inputImage(word: string, inputs: readonly string[]): CommandWord {
  const prefixed = coderOf(word);
  if (prefixed && MAGICK_GENERATORS.has(prefixed.coder)) {
    checkGenerator(word, prefixed.coder, prefixed.rest);
    return { kind: 'text', value: word };
  }
  const frames = /\[\d{1,4}(?:-\d{1,4})?\]$/.exec(word)?.[0];
  const file = frames ? word.slice(0, -frames.length) : word;
  const ref = reference(prefixed ? coderOf(file)!.rest : file, inputs);
  if (ref?.kind !== 'input') {
    throw refused(word, 'a word is an allowed option, a task file (/input/<task>/<file>, /output/<file>) or an image made from its argument (xc:white, gradient:red-blue, label:Text, pattern:checkerboard).');
  }
  if (/[%*?[\]{}@~]/.test(ref.file)) throw refused(word, 'input file names with % * ? [ ] { } @ ~ are read as patterns of other files here; rename the file.');
  const named = prefixed?.coder ?? extensionOf(ref.file);
  const coder = Object.hasOwn(MAGICK_FILE_CODERS, named) ? MAGICK_FILE_CODERS[named] : undefined;
  if (!coder) throw refused(word, `the format ${JSON.stringify(named)} is not read here; name the file's format (png:/input/…) among ${Object.keys(MAGICK_FILE_CODERS).join(', ')}.`);
  return { ...ref, coder, ...(frames ? { frames } : {}) };
}

function checkGenerator(word: string, coder: string, argument: string): void {
  if (coder === 'pattern') {
    if (!MAGICK_PATTERNS.has(argument.toLowerCase())) throw refused(word, 'pattern: takes one of the built-in pattern names (checkerboard, bricks, …).');
  } else if (coder === 'label' || coder === 'caption') {
    // `label:@file` reads the text from a file.
    if (argument.startsWith('@') || argument.length > 500) throw refused(word, `${coder}: takes text, not a file.`);
  } else {
    const colours = coder === 'xc' || coder === 'canvas' ? [argument] : argument.split('-');
    if (argument === '' && coder !== 'xc' && coder !== 'canvas') return;
    for (const colour of colours) if (!COLOUR.test(colour)) throw refused(word, `${coder}: takes colours (white, #ff0000, rgb(…)).`);
  }
}

/** The words of `convert`, `identify`, `magick` or `gm <tool>`, checked (see the top of this module). */
export function parseMagick(words: readonly string[], inputs: readonly string[], command: string): CommandWord[] {
  const out: CommandWord[] = [];
  let i = 0;
  let tool = command;
  if (command === 'gm' || command === 'magick') {
    const first = words[0] ?? '';
    if (MAGICK_TOOLS.has(first)) {
      out.push({ kind: 'text', value: first });
      tool = first;
      i = 1;
    } else if (command === 'gm') throw new CommandArgumentError('arguments', `gm arguments start with one of ${[...MAGICK_TOOLS].join(', ')}.`);
  }
  const writes = tool !== 'identify';
  // The last word of a command that writes is its output.
  const last = writes ? words.length - 1 : words.length;
  if (writes && (last < i || words[last]!.startsWith('-'))) throw new CommandArgumentError('arguments', `${tool} arguments end with the file to write, /output/<file name>.`);
  let depth = 0;
  for (; i < words.length; i++) {
    const word = words[i]!;
    if (word.startsWith('@')) throw refused(word, '@ reads a list of other files; name each task file instead.');
    if (i === last) {
      out.push(word === 'null:' ? { kind: 'text', value: word } : (outputFile(word, inputs) ?? refusedOutput(word)));
    } else if (word === '(' || word === ')') {
      depth += word === '(' ? 1 : -1;
      if (depth < 0) throw refused(word, 'a ) closes no (.');
      out.push({ kind: 'text', value: word });
    } else if (/^[-+][a-z]/.test(word)) {
      const kinds = MAGICK_OPTIONS.get(word);
      if (!kinds) throw refused(word, 'this option is not available (options here: see docs/security.md, "The command operation").');
      out.push({ kind: 'text', value: word });
      for (const kind of kinds) out.push(checkValue(word, kind, ++i === last ? undefined : words[i], inputs));
    } else out.push(inputImage(word, inputs));
  }
  if (depth !== 0) throw new CommandArgumentError('arguments', 'arguments have a ( that is not closed.');
  return out;
}

function refusedOutput(word: string): never {
  throw refused(word, 'the last word is the file to write, /output/<file name> (or null:).');
}
