/**
 * The sandbox's pieces on the real state store (dynalite) and object storage (s3rver): the whitelist,
 * the import gate in the runner (a refused file is deleted), billing that leaves balance and ledger
 * alone, and sandbox OAuth clients whose tokens verify as sandbox credentials.
 */
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { Credits } from '#lib/file-api/account/credits.js';
import { dayOf, Usage } from '#lib/file-api/account/usage.js';
import { Credentials } from '#lib/http/credentials.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { Users, userKey, type UserRecord } from '#lib/access/auth/users.js';
import { createLogger } from '#lib/kernel/log.js';
import { OAuthClients } from '#lib/access/oauth/clients.js';
import { TokenStore } from '#lib/access/oauth/tokens.js';
import { taskPrefix, type Implementation } from '#lib/file-api/operations/framework/types.js';
import { MAX_SANDBOX_FILES, SandboxFiles, SandboxInputError } from '#lib/file-api/sandbox/files.js';
import { TaskBilling } from '#lib/file-api/tasks/billing.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import type { RunnerDeps } from '#lib/file-api/tasks/runner.js';
import { exportUrl, importStaged } from '../support/operations.js';
import { useTaskBackends, wireTasks } from '../support/task-harness.js';

const log = createLogger({}, { level: 'silent' });
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

const { state, files } = useTaskBackends();

let lastUser = 200;
/** A user with a counted balance of 7 credits. */
async function newUser(credits: Credits) {
  const id = ++lastUser;
  const record: UserRecord = { ...userKey(id), id, username: `user ${id}`, email: `user${id}@example.com`, credits: 0, createdAt: new Date().toISOString() };
  await state.store.put(record);
  await credits.setCredits(id, 7);
  return id;
}

function wire() {
  const credits = new Credits({ state: state.store, users: new Users(state.store, { username: 'x', email: 'x@example.com', credits: 'unlimited' }) });
  const usage = new Usage(state.store, 400);
  const { store, service, drain: drainWith } = wireTasks({ state, files }, { log, billing: (store) => new TaskBilling({ store, credits, usage, log, estimate: () => 1 }), service: { credits } });
  const whitelist = new SandboxFiles(state.store);
  const implementations = {
    'import/raw': importStaged,
    convert: async (ctx) => ({ result: { files: [await ctx.save('out.jpg', 'jpeg')] }, credits: 1 }),
    'export/url': exportUrl,
  } satisfies Record<string, Implementation>;
  /** Runs every queued message of every step until none is left. */
  const drain = (extra: Partial<RunnerDeps> = {}) => drainWith(implementations, { sandboxFiles: whitelist, ...extra });
  return { store, credits, usage, service, whitelist, drain };
}
let w: ReturnType<typeof wire>;
beforeEach(() => {
  w = wire();
});

const importJob = (user: number, content: string, sandbox: boolean) =>
  w.service.createJob(
    user,
    planJob({
      tasks: {
        in: { operation: 'import/raw', file: content, filename: 'photo.png' },
        conv: { operation: 'convert', input: 'in', output_format: 'jpg' },
        out: { operation: 'export/url', input: 'conv' },
      },
    }),
    undefined,
    { sandbox },
  );

describe('the sandbox whitelist', () => {
  it('adds an MD5 once (any case), lists, tells which are missing, and removes', async () => {
    const user = await newUser(w.credits);
    const first = await w.whitelist.allow(user, md5('a').toUpperCase(), 'a.txt');
    expect(first).toMatchObject({ md5: md5('a'), filename: 'a.txt' });
    expect(await w.whitelist.allow(user, md5('a'))).toMatchObject({ filename: 'a.txt', createdAt: first.createdAt });
    await w.whitelist.allow(user, md5('b'));
    expect((await w.whitelist.list(user)).map((e) => e.md5).sort()).toEqual([md5('a'), md5('b')].sort());
    expect(await w.whitelist.list(user + 1000)).toEqual([]);
    expect(await w.whitelist.notAllowed(user, [md5('a'), md5('c')])).toEqual([md5('c')]);
    expect(await w.whitelist.remove(user, md5('a'))).toBe(true);
    expect(await w.whitelist.remove(user, md5('a'))).toBe(false);
    expect(await w.whitelist.notAllowed(user, [md5('a')])).toEqual([md5('a')]);
    await expect(w.whitelist.allow(user, 'xyz')).rejects.toThrow(SandboxInputError);
  });

  it(`holds at most ${MAX_SANDBOX_FILES} files per user`, async () => {
    const user = await newUser(w.credits);
    await state.store.putMany(
      Array.from({ length: MAX_SANDBOX_FILES }, (_, i) => ({ pk: `sandboxfiles#${user}`, sk: `md5#${md5(String(i))}`, userId: user, md5: md5(String(i)), createdAt: '2026-01-01T00:00:00Z' })),
    );
    await expect(w.whitelist.allow(user, md5('one more'))).rejects.toThrow(`at most ${MAX_SANDBOX_FILES} files`);
  });
});

describe('sandbox jobs in the pipeline', () => {
  it('imports a whitelisted file, converts and exports it without reserving, charging or counting credits', async () => {
    const user = await newUser(w.credits);
    await w.whitelist.allow(user, md5('png bytes'));
    const { job, tasks } = await importJob(user, 'png bytes', true);
    expect(job.sandbox).toBe(true);
    expect(tasks.every((t) => t.sandbox === true)).toBe(true);
    await w.drain();
    const [imported, converted, exported] = await w.store.getTasks(job.taskIds);
    expect(imported).toMatchObject({ status: 'finished', result: { files: [{ filename: 'photo.png', md5: md5('png bytes') }] } });
    expect(converted).toMatchObject({ status: 'finished', credits: 0 });
    expect(exported).toMatchObject({ status: 'finished', credits: 0, result: { files: [{ filename: 'out.jpg' }] } });
    expect(converted!.reservation).toBeUndefined();
    expect((await w.credits.account(user)).credits).toBe(7);
    expect((await w.usage.report(user, dayOf(new Date()), dayOf(new Date()))).totals).toMatchObject({ credits: 0, tasks: 0 });
    // The same job live is charged and counted.
    const live = await importJob(user, 'png bytes', false);
    await w.drain();
    expect((await w.store.getTasks(live.job.taskIds))[1]).toMatchObject({ status: 'finished', credits: 1 });
    expect((await w.credits.account(user)).credits).toBe(6);
  });

  it('ends an import of a file not on the list with SANDBOX_FILE_NOT_ALLOWED and deletes it; a live import of it is fine', async () => {
    const user = await newUser(w.credits);
    const { job } = await importJob(user, 'other bytes', true);
    await w.drain();
    const [imported, converted] = await w.store.getTasks(job.taskIds);
    expect(imported).toMatchObject({ status: 'error', code: 'SANDBOX_FILE_NOT_ALLOWED' });
    expect(imported!.message).toBe(
      `The sandbox takes only whitelisted files: photo.png (MD5 ${md5('other bytes')}) is not on the whitelist. ` +
        `Whitelist it with \`npm run -s sandbox -- allow ${md5('other bytes')} --user ${user}\` or POST /sandbox/v2/users/me/sandbox/files {"md5":"${md5('other bytes')}"}.`,
    );
    // The refused file stays named in the result, with its MD5 (CloudConvert's recorded refusal), though its bytes are gone.
    expect(imported!.result).toEqual({ files: [{ filename: 'photo.png', md5: md5('other bytes') }] });
    expect(converted).toMatchObject({ status: 'error', code: 'INPUT_TASK_FAILED' });
    expect(await files.files.list(taskPrefix(imported!.id))).toEqual([]);

    const live = await importJob(user, 'other bytes', false);
    await w.drain();
    expect((await w.store.getTasks(live.job.taskIds))[0]).toMatchObject({ status: 'finished' });
  });

  it('admits nothing when the consumer has no whitelist to ask', async () => {
    const user = await newUser(w.credits);
    await w.whitelist.allow(user, md5('png bytes'));
    const { job } = await importJob(user, 'png bytes', true);
    await w.drain({ sandboxFiles: undefined });
    expect((await w.store.getTasks(job.taskIds))[0]).toMatchObject({ status: 'error', code: 'INTERNAL_ERROR' });
  });
});

describe('sandbox credentials', () => {
  it('a key made with sandbox and the tokens of a sandbox OAuth client verify as sandbox credentials; others as live', async () => {
    const tokens = new TokenStore(state.store, { codeSeconds: 60, accessSeconds: 3600, refreshSeconds: 86400 });
    const keys = new ApiKeys(state.store);
    const credentials = new Credentials(state.store, keys, tokens);
    const sandboxKey = (await keys.create({ scopes: ['task.read'], sandbox: true })).key;
    const liveKey = (await keys.create({ scopes: ['task.read'] })).key;
    expect(await credentials.verify(sandboxKey)).toMatchObject({ kind: 'api-key', sandbox: true });
    expect(await credentials.verify(liveKey)).toMatchObject({ kind: 'api-key', sandbox: false });

    const clients = new OAuthClients(state.store);
    for (const sandbox of [true, false]) {
      const { client } = await clients.create({ name: 'app', redirectUris: ['https://app.example.com/cb'], sandbox });
      const grant = await tokens.approve(1, client.id, ['task.read']);
      const accessToken = tokens.newSecret('access');
      await tokens.saveTokens({ userId: 1, clientId: client.id, grantId: grant.grantId }, tokens.newFamilyId(), ['task.read'], {
        accessToken,
        accessTokenExpiresAt: new Date(Date.now() + 60_000),
      });
      expect(await credentials.verify(accessToken)).toMatchObject({ kind: 'oauth', sandbox });
    }
  });
});
