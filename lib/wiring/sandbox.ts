/** The users' sandbox whitelists (lib/file-api/sandbox/files.ts), one per function instance. */
import { SandboxFiles } from '../file-api/sandbox/files.js';
import { once, stateStore } from './clients.js';

export const sandboxFiles = once(() => new SandboxFiles(stateStore()));
