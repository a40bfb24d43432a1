/**
 * OAuth clients (applications that users authorize).
 *
 *   npm run -s oauth -- clients create --name <name> --redirect-uri <uri> [--redirect-uri <uri>…] [--public] [--implicit] [--sandbox]
 *       prints the client id, and for a confidential client its secret, shown this once
 *   npm run -s oauth -- clients list                    id, name, kind, grants, redirect URIs, created, live|sandbox
 *   npm run -s oauth -- clients delete <id>             every token issued to it stops working
 *
 * `--public`: a browser or native app without a secret (PKCE required). `--implicit`: may also use
 * the implicit grant (response_type=token); prefer the code flow with PKCE for new applications.
 * `--sandbox`: the client's access tokens are sandbox tokens (the file API's `/sandbox/v2` only).
 * One entry per subcommand in `commands`. Locally it uses the state of `npm start` (scripts/cli.ts);
 * for a deployed stage, pass `--table <name> [--region <region>]`.
 */
import { parseArgs } from 'node:util';
import { ClientInputError, OAuthClients } from '#lib/access/oauth/clients.js';
import { runTool, STORE_OPTIONS } from './cli.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    public: { type: 'boolean' },
    implicit: { type: 'boolean' },
    sandbox: { type: 'boolean' },
    ...STORE_OPTIONS,
    help: { type: 'boolean', short: 'h' },
  },
});
const [group, command, arg] = positionals;

const usage = `usage: npm run -s oauth -- clients create --name <name> --redirect-uri <uri> [--redirect-uri <uri>…] [--public] [--implicit] [--sandbox]
                        | clients list | clients delete <id>  [--table <name> --region <region>]`;

process.exitCode = await runTool({
  usage,
  command: group === 'clients' ? command : undefined,
  help: values.help,
  store: values,
  inputErrors: [ClientInputError],
  commands: (store) => {
    const clients = new OAuthClients(store);
    return {
      async create() {
        const { client, secret } = await clients.create({
          name: values.name ?? '',
          redirectUris: values['redirect-uri'] ?? [],
          public: values.public,
          implicit: values.implicit,
          sandbox: values.sandbox,
        });
        console.log(`client_id\t${client.id}`);
        if (secret) console.log(`client_secret\t${secret}`);
        console.error(secret ? 'The secret is shown this once; only its hash is kept.' : 'A public client: no secret, PKCE (S256) required.');
      },
      async list() {
        for (const c of await clients.list()) {
          const grants = ['code', ...(c.implicit ? ['implicit'] : [])].join('+');
          console.log([c.id, c.name, c.public ? 'public' : 'confidential', grants, c.redirectUris.join(' '), c.createdAt, c.sandbox ? 'sandbox' : 'live'].join('\t'));
        }
      },
      async delete() {
        if (!arg) throw new ClientInputError('give the id of the client to delete (see `npm run oauth -- clients list`)');
        const deleted = await clients.delete(arg);
        if (!deleted) throw new ClientInputError(`no client with id ${arg}`);
        console.error(`deleted client ${deleted.id} (${deleted.name}); its tokens no longer work`);
      },
    };
  },
});
