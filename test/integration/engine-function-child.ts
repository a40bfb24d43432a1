/**
 * An engine function as Lambda would run it, for engine-function.test.ts: started in a pid namespace
 * of its own with an empty /tmp and an environment without credentials or any resource of the stack.
 * Bundled by the test (CommonJS, as the functions are). Reads one engine request on stdin, answers on stdout: `{ response, env, tmpLeft }` (the variables it
 * had, and what the reaper left in /tmp).
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
  process.stdout.write(JSON.stringify({ response, env, tmpLeft: readdirSync(tmpdir()) }));
}
void main();
