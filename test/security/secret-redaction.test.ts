/**
 * Class 5 of issue 10: secrets given in task arguments (URL user-info and credential query parameters,
 * credential headers, secret fields at any depth) appear in no task message, no stored task once it has
 * ended, no API response (task GET with include=payload, before and after the run), no log line and no
 * webhook body — also when a failure's message quotes the URL (an engine error, a storage error).
 *
 * The tasks run in-process on the real pieces: dynalite, s3rver, Chromium for capture-website, a local
 * HTTP receiver, the GET endpoint's route chain; log lines are captured from the logger's output.
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig, type Config } from '#lib/kernel/config.js';
import { createLogger } from '#lib/kernel/log.js';
import { exportUpload, importStaged, importUrl, PROCESSING_IMPLEMENTATIONS } from '../support/operations.js';
import type { Implementation } from '#lib/file-api/operations/framework/types.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { runTask } from '#lib/file-api/tasks/runner.js';
import { Scheduler } from '#lib/file-api/tasks/scheduler.js';
import { TaskService } from '#lib/file-api/tasks/service.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import { WebhookNotifier } from '#lib/file-api/webhooks/events.js';
import { WEBHOOK_EVENTS } from '#lib/file-api/webhooks/model.js';
import { WebhookStore } from '#lib/file-api/webhooks/store.js';
import { closeBrowser } from '#lib/engines/chrome/browser.js';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { RecordingQueue, TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { testLinks } from '../support/links.js';
import { startFilesBackend } from '../support/s3rver.js';

/** Every secret of this file: none may show up anywhere a client or an operator can read. */
const SECRET = {
  password: 'pa55word-Uq7',
  token: 'SECRET1-token-Vw2',
  sig: 'SECRET2-sig-Xs9',
  code: 'SECRET3-code-Kd4',
  k: 'SECRET4-k-Pm8',
  pwd: 'SECRET5-pwd-Ra3',
  auth: 'SECRET6-auth-Ny5',
  amz: 'SECRET7-amzsig-Lf1',
  bearer: 'SECRET8-bearer-Hc6',
  custom: 'SECRET9-custom-Jt2',
  cookie: 'SECRET10-cookie-Gb7',
  nestedPass: 'SECRET11-nested-Zq3',
  nestedKey: 'SECRET12-apikey-Wm9',
  listed: 'SECRET13-listed-Ep4',
  fragment: 'SECRET14-fragment-Ty8',
  // A password split by a tab, which URL parsers drop: both halves are secret.
  tabHead: 'SECRET15-tabhead-Ow6',
  tabTail: 'SECRET16-tabtail-Ix2',
};
const ALL_SECRETS = Object.values(SECRET);

const secretQuery = () =>
  `token=${SECRET.token}&sig=${SECRET.sig}&code=${SECRET.code}&k=${SECRET.k}&pwd=${SECRET.pwd}&auth=${SECRET.auth}` +
  `&X-Amz-Signature=${SECRET.amz}&page=visible-value#access_token=${SECRET.fragment}`;
const secretUrl = (hostPort: string, pathname = '/p') => `http://user:${SECRET.password}@${hostPort}${pathname}?${secretQuery()}`;
const secretHeaders = () => ({ Authorization: `Bearer ${SECRET.bearer}`, 'X-Custom-Auth': SECRET.custom, Cookie: `session=${SECRET.cookie}`, Accept: 'text/plain' });

let state: Awaited<ReturnType<typeof startStateBackend>>;
let files: Awaited<ReturnType<typeof startFilesBackend>>;
let receiver: Receiver;
let closedPort: number;
let engineDir: string;
let config: Config;
let queue: RecordingQueue;
let store: TaskStore;
let scheduler: Scheduler;
let service: TaskService;
let apiKey: string;
let getTask: (id: string) => Promise<{ status: number; text: string }>;
const lines: string[] = [];
const log = createLogger({ service: 'test' }, { level: 'debug', write: (line) => lines.push(line) });
const implementations: Record<string, Implementation> = {
  'import/raw': importStaged,
  'import/url': importUrl,
  'export/upload': exportUpload,
  ...PROCESSING_IMPLEMENTATIONS,
};

/** A port nothing listens on. */
async function freeClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

beforeAll(async () => {
  [state, files, receiver] = await Promise.all([startStateBackend(), startFilesBackend(), startReceiver()]);
  closedPort = await freeClosedPort();
  engineDir = mkdtempSync(path.join(tmpdir(), 'secret-redaction-'));
  // (Scripts match the path with its query: every request here is refused.)
  receiver.script('*', [403]);
  // Loopback only for the receiver and the closed port; every other private address stays refused.
  config = parseConfig({
    ...TEST_CONFIG_ENV,
    ENGINE_TMP_DIR: engineDir,
    FETCH_ALLOW_HOSTS: `127.0.0.1:${receiver.port},127.0.0.1:${closedPort}`,
  });
  queue = new RecordingQueue();
  store = new TaskStore(state.store);
  const webhooks = new WebhookStore(state.store);
  await webhooks.create({ userId: 1, url: `${receiver.url}/hook`, events: [...WEBHOOK_EVENTS], keyIds: [] });
  const notifier = new WebhookNotifier({ webhooks, tasks: store, queue, links: testLinks(files.files), log, publicBaseUrl: 'http://api.test' });
  scheduler = new Scheduler({ store, queue, log, onJobEnded: (j) => notifier.jobEnded(j), onTaskEnded: (t) => notifier.taskEnded(t) });
  service = new TaskService({
    store,
    scheduler,
    files: files.files,
    log,
    onJobCreated: (j, t) => notifier.jobCreated(j, t),
    onTaskCreated: (t) => notifier.taskCreated(t),
  });

  // The task GET endpoint, as a cold start loads it, with its log lines on stdout.
  useLocalEnv({ dynamodb: state.endpoint, table: state.table, s3: files.endpoint, LOG_LEVEL: 'debug' });
  const [{ apiKeys }, { handler }] = await Promise.all([import('#lib/wiring/file-api.js'), import('#functions/tasks/get.js')]);
  apiKey = (await apiKeys().create({ scopes: ['task.read'] })).key;
  getTask = async (id) => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      return await call(handler, { path: `/v2/tasks/${id}`, query: 'include=payload', pathParameters: { id }, headers: { authorization: `Bearer ${apiKey}` } });
    } finally {
      write.mockRestore();
    }
  };
});

afterAll(async () => {
  await closeBrowser().catch(() => {});
  await Promise.all([state?.close(), files?.close(), receiver?.close()]);
  if (engineDir) rmSync(engineDir, { recursive: true, force: true });
});

async function drain() {
  for (;;) {
    const batch = queue.sent.filter((s) => s.queue !== 'webhooks');
    if (!batch.length) return;
    queue.sent = queue.sent.filter((s) => s.queue === 'webhooks');
    for (const { message } of batch) {
      await runTask(message.taskId, {
        store,
        scheduler,
        files: files.files,
        config,
        log,
        implementations,
        requeue: (task, delaySeconds) => queue.send(task.step, { taskId: task.id }, { delaySeconds }),
      }).catch(() => {});
    }
  }
}

function expectNoSecret(where: string, text: string) {
  for (const secret of ALL_SECRETS) {
    expect(text.includes(secret), `${where} shows ${secret}:\n${text.slice(0, 4000)}`).toBe(false);
    expect(text.includes(encodeURIComponent(secret)), `${where} shows ${secret} URL-encoded`).toBe(false);
  }
}

/**
 * Runs a job and checks everything that leaves its task `name`: the API's answers before and after the
 * run, the stored task, the log lines, the webhook bodies. Returns the ended task.
 */
async function runAndCheck(tasks: Record<string, Record<string, unknown>>, name = 't'): Promise<TaskRecord> {
  lines.length = 0;
  queue.sent = [];
  const { tasks: created } = await service.createJob(1, planJob({ tasks }));
  const id = created.find((t) => t.name === name)!.id;
  const before = await getTask(id);
  expect(before.status).toBe(200);
  expectNoSecret('the API answer before the run', before.text);

  await drain();
  const ended = (await store.getTask(id))!;
  expect(ended.status, JSON.stringify(ended)).toBe('error');
  expect(ended.message).toBeTruthy();
  expectNoSecret('the task message', ended.message!);
  expectNoSecret('the stored task', JSON.stringify(ended));

  const after = await getTask(id);
  expect(after.status).toBe(200);
  expectNoSecret('the API answer after the run', after.text);
  expect(JSON.parse(after.text).data.message).toBe(ended.message);

  const bodies = queue.sent.filter((s) => s.queue === 'webhooks').map((s) => (s.message as { body: string }).body);
  expect(bodies.some((b) => b.includes('"task.failed"'))).toBe(true);
  for (const body of bodies) expectNoSecret('a webhook body', body);

  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expectNoSecret('a log line', line);
  return ended;
}

describe('secrets never leave a task', () => {
  it('capture-website of a URL with user-info and query tokens that fails to load: the engine error is redacted', async () => {
    const ended = await runAndCheck({ t: { operation: 'capture-website', url: secretUrl(`127.0.0.1:${closedPort}`).replace('http:', 'https:'), output_format: 'png', headers: secretHeaders() } });
    expect(ended.code).toBe('CAPTURE_FAILED');
    // The message still says what went wrong, and where.
    expect(ended.message).toContain(`127.0.0.1:${closedPort}`);
  });

  it('capture-website of a URL the address guard refuses', async () => {
    const ended = await runAndCheck({ t: { operation: 'capture-website', url: secretUrl('10.0.0.1'), output_format: 'pdf' } });
    expect(ended.code).toBe('CAPTURE_FAILED');
  });

  it('import/url of a URL answering 403, with credential headers', async () => {
    const ended = await runAndCheck({ t: { operation: 'import/url', url: secretUrl(`127.0.0.1:${receiver.port}`, '/missing'), headers: secretHeaders() } });
    expect(ended.code).toBe('DOWNLOAD_FAILED');
    // The request did carry the secrets: only what is shown is redacted.
    const sent = receiver.requests.find((r) => r.path.startsWith('/missing'))!;
    expect(sent.headers['x-custom-auth']).toBe(SECRET.custom);
  });

  it('import/url of a refused address, with secrets in nested and listed arguments', async () => {
    await runAndCheck({
      t: {
        operation: 'import/url',
        url: secretUrl('169.254.169.254', '/latest/meta-data'),
        auth: { user: 'someone', pass: SECRET.nestedPass },
        options: { client: { apikey: SECRET.nestedKey } },
        extra_headers: [{ name: 'X-Api-Key', value: SECRET.listed }],
      },
    });
  });

  it('import/url of a URL whose password holds a tab (dropped by the URL parser, so it is still a credential)', async () => {
    const url = `http://user:${SECRET.tabHead}\t${SECRET.tabTail}@127.0.0.1:${receiver.port}/tabbed?page=1`;
    const ended = await runAndCheck({ t: { operation: 'import/url', url } });
    expect(ended.code).toBe('DOWNLOAD_FAILED');
    // The credential was sent, without its tab.
    const sent = receiver.requests.find((r) => r.path.startsWith('/tabbed'))!;
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`user:${SECRET.tabHead}${SECRET.tabTail}`).toString('base64')}`);
  });

  it('export/upload with Authorization, X-Custom-Auth and Cookie headers to a target answering 403', async () => {
    const ended = await runAndCheck(
      {
        raw: { operation: 'import/raw', file: 'content', filename: 'a.txt' },
        up: { operation: 'export/upload', input: 'raw', url: secretUrl(`127.0.0.1:${receiver.port}`, '/upload'), headers: secretHeaders() },
      },
      'up',
    );
    expect(ended.code).toBe('UPLOAD_FAILED');
  });

  it('export/upload to a refused address', async () => {
    const ended = await runAndCheck(
      {
        raw: { operation: 'import/raw', file: 'content', filename: 'a.txt' },
        up: { operation: 'export/upload', input: 'raw', url: secretUrl('192.168.0.1', '/upload'), headers: secretHeaders() },
      },
      'up',
    );
    expect(ended.code).toBe('UPLOAD_FAILED');
  });
});

describe('one redaction rule', () => {
  it('hides every header value but a small safe set, at any depth, and keeps what is not secret', async () => {
    const { redactValue } = await import('#lib/kernel/redact.js');
    const shown = redactValue({
      url: secretUrl('example.com'),
      headers: { ...secretHeaders(), 'X-Request-Mode': 'fast', 'Content-Type': 'text/plain', 'User-Agent': 'agent/1' },
      nested: { deeper: [{ password: SECRET.nestedPass, note: 'kept' }], session_id: SECRET.listed },
      key: 'exports/report.pdf',
      metadata: { Author: 'Jane', Title: 'Report' },
    }) as Record<string, any>;
    const text = JSON.stringify(shown);
    expectNoSecret('the redacted value', text);
    expect(shown.headers['Content-Type']).toBe('text/plain');
    expect(shown.headers['User-Agent']).toBe('agent/1');
    expect(shown.headers.Accept).toBe('text/plain');
    expect(shown.headers['X-Request-Mode']).toBe('[hidden]');
    expect(shown.nested.deeper[0].note).toBe('kept');
    expect(shown.key).toBe('exports/report.pdf');
    expect(shown.metadata).toEqual({ Author: 'Jane', Title: 'Report' });
    expect(shown.url).toContain('page=visible-value');
    expect(shown.url).toContain('example.com/p');
  });

  it('hides user-info in every form a URL parser reads as one: tabs and newlines inside, no or backward slashes after the scheme', async () => {
    const { redactText, redactValue, secretValues } = await import('#lib/kernel/redact.js');
    const forms = [
      `https://user:${SECRET.tabHead}\t${SECRET.tabTail}@host.test/p`,
      `https://user:${SECRET.tabHead}\n${SECRET.tabTail}@host.test/p`,
      `https:user:${SECRET.password}@host.test/p`,
      `https:/user:${SECRET.password}@host.test/p`,
      `https:\\\\user:${SECRET.password}@host.test/p`,
      `HTTP:user:${SECRET.password}@host.test`,
    ];
    for (const url of forms) {
      expectNoSecret(`the redacted payload of ${JSON.stringify(url)}`, JSON.stringify(redactValue({ url, webhook_url: url })));
      expectNoSecret(`the redacted text of ${JSON.stringify(url)}`, redactText(`failed: ${url} (403)`));
      // A message that quotes the URL as the parser normalized it is redacted by the payload's secrets too.
      const normalized = new URL(url).href;
      expectNoSecret(`the message quoting ${normalized}`, redactText(`GET ${normalized.replace('@', ' at ')}`, secretValues({ url })));
    }
  });

  it('hides credentials written as header lines, printed objects and name=scheme pairs, and parameters whose names are percent-encoded', async () => {
    const { redactText } = await import('#lib/kernel/redact.js');
    const texts = [
      `request failed\nAuthorization: Token ${SECRET.bearer}\nAccept: */*`,
      `x-api-key: ${SECRET.custom}`,
      `{ authorization: 'Bearer ${SECRET.bearer}', accept: 'text/plain' }`,
      `headers: { Cookie: "session=${SECRET.cookie}" }`,
      `authorization=Bearer ${SECRET.bearer}`,
      `time: 12:30 password: ${SECRET.password}, retrying`,
      `https://host.test/p?%74oken=${SECRET.token}&p%61ssword=${SECRET.password}`,
    ];
    for (const text of texts) {
      const out = redactText(text);
      expectNoSecret(`the redacted text of ${JSON.stringify(text)}`, out);
      expect(out).toContain('[hidden]');
    }
    // What is not secret stays readable.
    expect(redactText('Error: connect ECONNREFUSED 127.0.0.1:443; time: 12:30')).toBe('Error: connect ECONNREFUSED 127.0.0.1:443; time: 12:30');
    expect(redactText('{ accept: "text/plain" }\nAccept: */*')).toBe('{ accept: "text/plain" }\nAccept: */*');
  });

  it('hides URL credentials inside free text, whatever surrounds them', async () => {
    const { redactText } = await import('#lib/kernel/redact.js');
    const texts = [
      `net::ERR_CONNECTION_REFUSED at ${secretUrl('127.0.0.1:9')}`,
      `failed (${secretUrl('host.test')}), giving up`,
      `"${secretUrl('host.test')}"`,
      `<Location>${secretUrl('host.test').replace(/&/g, '&amp;')}</Location>`,
      `GET https://${SECRET.token}@github.com/org/repo.git failed`,
      `see s3://bucket/key?X-Amz-Credential=${SECRET.k}&X-Amz-Security-Token=${SECRET.token}`,
    ];
    for (const text of texts) {
      const out = redactText(text);
      expectNoSecret('the redacted text', out);
      expect(out).toContain('[hidden]');
    }
    // Linear in the input: a long text without any URL, and one with many.
    const started = performance.now();
    redactText('a'.repeat(200_000) + '://');
    redactText(`${secretUrl('h.test')} `.repeat(2000));
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
