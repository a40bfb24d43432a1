/** archive/extract on the image function: 7-Zip in WebAssembly. */
import { extractArchive } from '../../../../engines/archive/handlers.js';
import { handlers } from '../../framework/define.js';
import { archiveExtract } from './operation.js';

export default handlers(archiveExtract, 'image', { archivetool: extractArchive });
