/** command on the media function: ffmpeg and ffprobe. */
import { runCommand } from '../../../engines/command/command.js';
import { handlers } from '../framework/define.js';
import { command } from './operation.js';

export default handlers(command, 'media', { ffmpeg: runCommand });
