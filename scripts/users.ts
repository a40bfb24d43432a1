/**
 * Accounts (users) of the service.
 *
 *   npm run -s users -- create --email <address> --name <name> [--password-stdin] [--credits <n|unlimited>]
 *       makes an account; prints its password once (a random one), or takes it from stdin; its balance
 *       starts as the built-in account's (ACCOUNT_CREDITS, default unlimited) unless --credits says
 *   npm run -s users -- credits <id|email> <n|unlimited>   sets the balance
 *   npm run -s users -- region <id|email> <region|none>    fixes the account's processing region (none: chosen per request)
 *   npm run -s users -- list                          id, name, e-mail, created, state
 *   npm run -s users -- disable <id|email>            its keys, tokens and sessions stop working
 *   npm run -s users -- password <id|email> [--password-stdin]
 *       sets a new password (printed once when random); the built-in account 1 needs one to sign in
 *
 * One entry per subcommand in `commands`. Locally it uses the state of `npm start` (scripts/cli.ts);
 * for a deployed stage, pass `--table <name> [--region <region>]`.
 */
import { parseArgs } from 'node:util';
import { AccountInputError } from '#lib/access/auth/accounts.js';
import { generatePassword } from '#lib/access/auth/passwords.js';
import { parseBalance, type Balance } from '#lib/file-api/account/credits.js';
import { Users } from '#lib/access/auth/users.js';
import { accountConfig, regionConfig } from '#lib/kernel/config.js';
import { parseFixedRegion, RegionInputError, setFixedRegion } from '#lib/access/regions/user-region.js';
import { accountsOf, creditsOf, readStdin, runTool, STORE_OPTIONS } from './cli.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    email: { type: 'string' },
    name: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    credits: { type: 'string' },
    ...STORE_OPTIONS,
    help: { type: 'boolean', short: 'h' },
  },
});
const [command, arg, value] = positionals;

const usage = `usage: npm run -s users -- create --email <address> --name <name> [--password-stdin] [--credits <n|unlimited>]
                        | list | disable <id|email> | password <id|email> [--password-stdin]
                        | credits <id|email> <n|unlimited> | region <id|email> <region|none>
                        [--table <name> --region <region>]`;

/** A balance as typed (`--credits`, or the `credits` subcommand's value). */
function balance(text: string | undefined): Balance | undefined {
  if (text === undefined) return undefined;
  const parsed = parseBalance(text);
  if (parsed === undefined) throw new AccountInputError('credits', `a balance is a whole number of credits or unlimited, not ${text}`);
  return parsed;
}

/** The password to set: from stdin, or a random one to print once. */
async function newPassword(): Promise<{ password: string; generated: boolean }> {
  if (!values['password-stdin']) return { password: generatePassword(), generated: true };
  const password = await readStdin();
  if (!password) throw new AccountInputError('password', 'no password on stdin');
  return { password, generated: false };
}

process.exitCode = await runTool({
  usage,
  command,
  help: values.help,
  store: values,
  inputErrors: [AccountInputError, RegionInputError],
  explain: (err) =>
    err instanceof AccountInputError && err.field !== 'user' ? `${err.field}: ${err.message}` : err instanceof RegionInputError ? `region: ${err.message}` : err.message,
  commands: (store) => {
    const accounts = accountsOf(store);
    const named = async () => {
      if (!arg) throw new AccountInputError('user', `give the account's id or e-mail address\n${usage}`);
      const user = await accounts.resolve(arg);
      if (!user) throw new AccountInputError('user', `no user ${arg} (see \`npm run users -- list\`)`);
      return user;
    };
    return {
      async create() {
        if (!values.email || !values.name) throw new AccountInputError('user', `give --email and --name\n${usage}`);
        const { password, generated } = await newPassword();
        const { user } = await accounts.create({ email: values.email, username: values.name, password, credits: balance(values.credits) });
        console.error(`created user ${user.id} (${user.email})${generated ? '; its password, shown this once:' : ''}`);
        if (generated) process.stdout.write(password + '\n');
      },
      async list() {
        for (const u of await accounts.list()) {
          const credits = u.creditsUnlimited ? 'unlimited' : `${u.credits} credits`;
          console.log([u.id, u.username, u.email, u.createdAt, credits, u.disabledAt ? `disabled ${u.disabledAt}` : 'active', u.region ?? '-'].join('\t'));
        }
      },
      async credits() {
        const user = await named();
        const to = balance(value);
        if (to === undefined) throw new AccountInputError('credits', `give the balance: a number of credits or unlimited\n${usage}`);
        const updated = await creditsOf(store).setCredits(user.id, to);
        console.error(`user ${updated.id} (${updated.email}): ${updated.creditsUnlimited ? 'unlimited credits' : `${updated.credits} credits`}`);
      },
      async region() {
        const user = await named();
        const fixed = parseFixedRegion(value, regionConfig().REGIONS, { none: true });
        const c = accountConfig();
        const users = new Users(store, { username: c.ACCOUNT_USERNAME, email: c.ACCOUNT_EMAIL, credits: c.ACCOUNT_CREDITS });
        const updated = await setFixedRegion({ state: store, users }, user.id, fixed);
        console.error(`user ${updated.id} (${updated.email}): ${updated.region ? `region ${updated.region}` : 'region chosen per request'}`);
      },
      async disable() {
        const user = await accounts.disable((await named()).id);
        console.error(`disabled user ${user.id} (${user.email})`);
      },
      async password() {
        const user = await named();
        const { password, generated } = await newPassword();
        await accounts.setPassword(user.id, password);
        console.error(`new password set for user ${user.id} (${user.email})${generated ? ', shown this once:' : ''}`);
        if (generated) process.stdout.write(password + '\n');
      },
    };
  },
});
