/**
 * `command`: `ffmpeg` or `ffprobe` (engine ffmpeg), ImageMagick's `convert`, `identify` or `magick`
 * (engine imagemagick) or GraphicsMagick's `gm` (engine graphicsmagick) run with the given `arguments`
 * on the task's input files (`/input/<input task name>/<file name>`), keeping what it writes to
 * `/output/<file name>`; `capture_output` gives its output back as `result.output`. Arguments that
 * could reach anything but the task's own files are refused at creation (lib/engines/command/command.ts).
 */
import * as z from 'zod';
import { CommandArgumentError, COMMANDS, MAX_ARGUMENTS_LENGTH, validateCommand } from '../../../engines/command/command-arguments.js';
import { defineOperation } from '../framework/define.js';
import { namedEngine } from '../framework/engine-request.js';
import { common, opt } from '../framework/fields.js';

const name = 'command';
const OPTIONS = ['command', 'arguments', 'capture_output'] as const;

export const command = defineOperation({
  name,
  step: 'process',
  inputs: 'optional',
  schema: z
    .looseObject({
      ...common,
      engine: z.enum(['ffmpeg', 'imagemagick', 'graphicsmagick']),
      command: z.enum(Object.values(COMMANDS).flat() as [string, ...string[]]),
      arguments: z.string().min(1).max(MAX_ARGUMENTS_LENGTH),
      capture_output: opt(z.boolean(), false, "give the command's output back as result.output"),
    })
    .superRefine((v, ctx) => {
      try {
        validateCommand(v, v.input ?? []);
      } catch (err) {
        if (!(err instanceof CommandArgumentError)) throw err;
        ctx.addIssue({ code: 'custom', path: [err.field], message: err.message });
      }
    }),
  engines: {
    // The engine is named by the request; the inputs may be any files, or none.
    request: (args) => ({ inputFormat: undefined, outputFormat: undefined, ...namedEngine(args) }),
    mode: 'all',
    outputFormat: () => undefined,
    order: ['ffmpeg', 'imagemagick', 'graphicsmagick'],
    // What `command` writes is named by its arguments: no output format to choose by. The engine's
    // output (capture_output) is the task's `result.output`.
    resultFromMetadata: true,
    capabilities: {
      // `arguments`: only where the engine runs fully confined or platform-isolated (catalog.ts).
      ffmpeg: [
        { inputs: 'any', outputs: null, options: OPTIONS, credits: 1, feature: 'arguments' },
        { inputs: null, outputs: null, options: OPTIONS, credits: 1, feature: 'arguments' },
      ],
      // The system ImageMagick: its WebAssembly build has no command line (it converts).
      imagemagick: [
        { inputs: 'any', outputs: null, options: OPTIONS, credits: 1, feature: 'arguments', variant: 'system' },
        { inputs: null, outputs: null, options: OPTIONS, credits: 1, feature: 'arguments', variant: 'system' },
      ],
      graphicsmagick: [
        { inputs: 'any', outputs: null, options: OPTIONS, credits: 1, feature: 'arguments' },
        { inputs: null, outputs: null, options: OPTIONS, credits: 1, feature: 'arguments' },
      ],
    },
  },
});
