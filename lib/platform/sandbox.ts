/** The users' sandbox whitelists (lib/sandbox/files.ts), one per function instance. */
import { SandboxFiles } from '../sandbox/files.js';
import { once, stateStore } from './clients.js';

export const sandboxFiles = once(() => new SandboxFiles(stateStore()));
