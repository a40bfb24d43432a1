/**
 * An engine function as Lambda would run it, for engine-function.test.ts: started in a pid namespace
 * of its own with an empty /tmp and an environment without credentials or any resource of the stack.
 * Bundled by the test (CommonJS, as the functions are). Reads one engine request on stdin, answers on stdout: `{ response, env, tmpLeft }` (the variables it
 * had, what the reaper left in /tmp, and whether it loaded sharp itself).
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { handler as image } from '#functions/engines/image.js';
import { handler as media } from '#functions/engines/media.js';

async function main() {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const env = Object.keys(process.env).sort();
  const handler = process.env.ENGINE_FAMILY === 'media' ? media : image;
  const response = await handler(JSON.parse(Buffer.concat(chunks).toString('utf8')), { getRemainingTimeInMillis: () => 120_000 });
  // Whether this process (the runtime's) ever loaded the image decoder: the task ran in a worker.
  const sharpLoaded = Object.keys(require.cache).some((file) => file.includes('/node_modules/sharp/'));
  process.stdout.write(JSON.stringify({ response, env, tmpLeft: readdirSync(tmpdir()), sharpLoaded }));
}
// A forked engine worker runs this bundle again: it serves its engine function, not this script.
if (!process.env.ENGINE_WORKER) void main();
