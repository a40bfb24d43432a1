/** command on the image function: the system ImageMagick and GraphicsMagick, where installed. */
import { runCommand } from '../../../engines/command/command.js';
import { handlers } from '../framework/define.js';
import { command } from './operation.js';

export default handlers(command, 'image', { imagemagick: runCommand, graphicsmagick: runCommand });
