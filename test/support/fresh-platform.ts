/**
 * One e2e file's platform with a fresh machine's tools (support/fresh-machine.ts) and the cloudconvert
 * SDK on it: started before the file's tests, stopped (and its data folder removed) after them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { cloudConvertClient } from './cloudconvert.js';
import { NO_SYSTEM_TOOLS } from './fresh-machine.js';
import { e2eOutput } from './platform-output.js';

export interface FreshPlatform {
  platform: Emulator;
  cc: ReturnType<typeof cloudConvertClient>;
}

export function freshPlatform(name: string): FreshPlatform {
  const dataDir = mkdtempSync(path.join(tmpdir(), `${name}-e2e-`));
  const started = {} as FreshPlatform;
  beforeAll(async () => {
    started.platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn', ...NO_SYSTEM_TOOLS } });
    started.cc = cloudConvertClient(started.platform.apiKey, started.platform.baseUrl);
  }, 420_000);
  afterAll(async () => {
    await started.platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return started;
}
