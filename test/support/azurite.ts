/**
 * Azurite's blob service in a temporary folder on a free port, spawned as a child process, with one
 * storage account whose key is random (AZURITE_ACCOUNTS), so tests can tell the key apart from any
 * well-known development key. Azurite 3.35 needs `--skipApiVersionCheck` for current SDKs, and
 * `--disableTelemetry` (it would call out otherwise).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../local/backends.js';

export interface Azurite {
  account: string;
  accountKey: string;
  /** `http://127.0.0.1:<port>/{account}`: the service's AZURE_BLOB_ENDPOINT. */
  endpointTemplate: string;
  /** The account's blob endpoint. */
  accountUrl: string;
  close(): Promise<void>;
}

export async function startAzurite(account = `acct${randomBytes(4).toString('hex')}`): Promise<Azurite> {
  const location = mkdtempSync(path.join(tmpdir(), 'azurite-'));
  const port = await freePort();
  const accountKey = randomBytes(64).toString('base64');
  const main = createRequire(import.meta.url).resolve('azurite/dist/src/blob/main.js');
  const child = spawn(
    process.execPath,
    [main, '--blobHost', '127.0.0.1', '--blobPort', String(port), '--location', location, '--skipApiVersionCheck', '--disableTelemetry', '--loose', '--silent'],
    { env: { ...process.env, AZURITE_ACCOUNTS: `${account}:${accountKey}` }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const accountUrl = `http://127.0.0.1:${port}/${account}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`azurite exited (${child.exitCode}): ${output}`);
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`azurite did not start: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    account,
    accountKey,
    endpointTemplate: `http://127.0.0.1:${port}/{account}`,
    accountUrl,
    close: async () => {
      if (child.exitCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 5000).unref();
        });
      }
      rmSync(location, { recursive: true, force: true });
    },
  };
}
