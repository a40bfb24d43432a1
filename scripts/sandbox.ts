/**
 * The sandbox's file whitelist (lib/file-api/sandbox): the files a user's sandbox imports may bring in, by MD5.
 *
 *   npm run -s sandbox -- allow <file path or md5> [--user <id|email>]   a file is read (streamed) for its MD5
 *   npm run -s sandbox -- list [--user <id|email>]                       md5, file name, added
 *   npm run -s sandbox -- remove <md5> [--user <id|email>]
 *
 * `--user` defaults to the built-in account 1. One entry per subcommand in `commands`. Locally it uses
 * the state of `npm start` (scripts/cli.ts); for a deployed stage, pass `--table <name> [--region <region>]`.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AccountInputError } from '#lib/access/auth/accounts.js';
import { BUILT_IN_USER_ID } from '#lib/access/auth/users.js';
import { isMd5, md5OfStream, SandboxFiles, SandboxInputError } from '#lib/file-api/sandbox/files.js';
import type { StateStore } from '#lib/adapters/state/port.js';
import { accountsOf, runTool, STORE_OPTIONS } from './cli.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    user: { type: 'string' },
    ...STORE_OPTIONS,
    help: { type: 'boolean', short: 'h' },
  },
});
const [command, arg] = positionals;

const usage = `usage: npm run -s sandbox -- allow <file path or md5> | list | remove <md5>  [--user <id|email>] [--table <name> --region <region>]`;

/** The user `--user` names (an id or e-mail address), else the built-in account. */
async function userOf(store: StateStore): Promise<number> {
  if (!values.user) return BUILT_IN_USER_ID;
  const user = await accountsOf(store).resolve(values.user);
  if (!user) throw new SandboxInputError('user', `no user ${values.user} (see \`npm run users -- list\`)`);
  return user.id;
}

/** An existing file is hashed (its MD5 and name go on the list); otherwise the argument must be an MD5. */
async function entryOf(given: string): Promise<{ md5: string; filename?: string }> {
  const file = await stat(given).catch(() => undefined);
  if (file?.isFile()) return { md5: await md5OfStream(createReadStream(given)), filename: path.basename(given) };
  if (isMd5(given.toLowerCase())) return { md5: given.toLowerCase() };
  throw new SandboxInputError('file', `${given} is neither a file nor an MD5 checksum (32 hexadecimal characters)`);
}

process.exitCode = await runTool({
  usage,
  command,
  help: values.help,
  store: values,
  inputErrors: [SandboxInputError, AccountInputError],
  commands: (store) => {
    const whitelist = new SandboxFiles(store);
    return {
      async allow() {
        if (!arg) throw new SandboxInputError('file', `give a file or its MD5\n${usage}`);
        const { md5, filename } = await entryOf(arg);
        const userId = await userOf(store);
        const entry = await whitelist.allow(userId, md5, filename);
        console.log(entry.md5);
        console.error(`user ${userId}: sandbox imports of ${filename ?? 'files'} with MD5 ${entry.md5} are allowed`);
      },
      async list() {
        for (const e of await whitelist.list(await userOf(store))) console.log([e.md5, e.filename ?? '-', e.createdAt].join('\t'));
      },
      async remove() {
        if (!arg) throw new SandboxInputError('md5', `give the MD5 to remove (see \`npm run sandbox -- list\`)\n${usage}`);
        const userId = await userOf(store);
        if (!(await whitelist.remove(userId, arg))) throw new SandboxInputError('md5', `${arg} is not on the sandbox whitelist of user ${userId}`);
        console.error(`user ${userId}: ${arg.toLowerCase()} removed from the sandbox whitelist`);
      },
    };
  },
});
