/**
 * API keys for the file API and the Google-dialect APIs.
 *
 *   npm run keys -- create --scopes task.read,task.write [--name ci] [--user <id|email>] [--sandbox]   prints only the new key
 *   npm run keys -- create --scopes cloud-platform,drive.labels         Google OAuth scopes, short or full URL
 *   npm run keys -- list                                               id, user, name, scopes, created, state, live|sandbox
 *   npm run keys -- revoke <id>
 *   npm run keys -- reindex                                            puts keys made before the per-user index into it
 *
 * `--sandbox`: a key of the file API's sandbox (`/sandbox/v2`, lib/file-api/sandbox): it works there only, and
 * live keys do not work there.
 * A key belongs to a user (`--user`, default the built-in account 1). Locally it uses the state of
 * `npm start` (scripts/cli.ts); for a deployed stage, pass `--table <name> [--region <region>]`.
 */
import { parseArgs } from 'node:util';
import { AccountInputError } from '#lib/access/auth/accounts.js';
import { ApiKeys, InvalidKeyInputError, parseScopes } from '#lib/access/auth/keys.js';
import { BUILT_IN_USER_ID } from '#lib/access/auth/users.js';
import { accountsOf, runTool, STORE_OPTIONS } from './cli.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    scopes: { type: 'string' },
    name: { type: 'string' },
    user: { type: 'string' },
    sandbox: { type: 'boolean' },
    ...STORE_OPTIONS,
    help: { type: 'boolean', short: 'h' },
  },
});
const [command, arg] = positionals;

const usage = `usage: npm run keys -- create --scopes ${'<scope,…>'} [--name <name>] [--user <id|email>] [--sandbox] | list | revoke <id> | reindex  [--table <name> --region <region>]`;

process.exitCode = await runTool({
  usage,
  command,
  help: values.help,
  store: values,
  inputErrors: [InvalidKeyInputError, AccountInputError],
  commands: (store) => {
    const keys = new ApiKeys(store);
    return {
      async create() {
        const scopes = parseScopes(values.scopes ?? '');
        let userId = BUILT_IN_USER_ID;
        if (values.user) {
          const user = await accountsOf(store).resolve(values.user);
          if (!user) throw new InvalidKeyInputError(`no user ${values.user} (see \`npm run users -- list\`)`);
          if (user.disabledAt) throw new InvalidKeyInputError(`user ${user.id} is disabled`);
          userId = user.id;
        }
        const { key } = await keys.create({ scopes, name: values.name, userId, sandbox: values.sandbox });
        process.stdout.write(key + '\n');
      },
      async list() {
        for (const k of await keys.list()) {
          const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
          console.log([k.keyId, `user ${k.userId}`, k.name || '-', k.scopes.join(','), k.createdAt, state, k.sandbox ? 'sandbox' : 'live'].join('\t'));
        }
      },
      async revoke() {
        if (!arg) throw new InvalidKeyInputError('give the id of the key to revoke (see `npm run keys -- list`)');
        const revoked = await keys.revoke(arg);
        if (!revoked) throw new InvalidKeyInputError(`no key with id ${arg}`);
        console.error(`revoked ${revoked.keyId}`);
      },
      async reindex() {
        console.error(`indexed ${await keys.reindex()} keys by user`);
      },
    };
  },
});
