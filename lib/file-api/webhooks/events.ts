/**
 * Turns job and task events into webhook deliveries: for each event, the user's endpoints that
 * subscribe to it (and, when an endpoint is assigned to API keys, only for jobs and tasks created with
 * one of them), plus the job's own `webhook_url` for `job.finished`/`job.failed`. The request body is
 * made once, when the event happens, and travels in the delivery message, so every retry sends (and
 * signs) the same bytes; a body too large for a queue message (a job of many tasks) travels through
 * the files bucket instead, and the message names it. Messages carry no secret: the consumer looks
 * the signing secret up.
 *
 * Sandbox jobs and tasks reach only sandbox endpoints, live ones only live endpoints. Each method takes
 * who may listen when the caller looked it up (`present`): without endpoints, no query is made.
 *
 * Notification never breaks the pipeline: a failure to notify is logged, the job goes on.
 */
import { createHash } from 'node:crypto';
import type { FileStore } from '../../adapters/file-store/port.js';
import type { Logger } from '../../kernel/log.js';
import type { Queue } from '../../adapters/queue/port.js';
import type { TaskLinks } from '../tasks/links.js';
import { isSandbox, type JobRecord, type TaskRecord } from '../records/model.js';
import type { TaskStore } from '../records/store.js';
import type { Presence } from '../records/listeners.js';
import { jobView, taskView } from '../tasks/views.js';
import { JOB_URL_EVENTS, originOf, type WebhookEvent, type WebhookRecord } from './model.js';
import type { WebhookStore } from './store.js';

/** One delivery: to a settings endpoint (`webhookId`) or to a job's `webhook_url` (`url`). */
export interface WebhookMessage {
  userId: number;
  webhookId?: string;
  url?: string;
  event: WebhookEvent;
  /** The exact JSON body to POST… */
  body?: string;
  /** …or the key of the file that holds it, when it is larger than INLINE_BODY_BYTES. */
  bodyKey?: string;
  /** 1 for the first try. */
  attempt: number;
}

export interface WebhookNotifierDeps {
  webhooks: WebhookStore;
  tasks: TaskStore;
  queue: Queue;
  /** Export URLs and upload forms in the bodies, signed as for any answer. */
  links: TaskLinks;
  log: Logger;
  /** Base of `links.self` when the job or task did not record the one it was created under. */
  publicBaseUrl?: string;
  /** Where bodies too large for a queue message go. */
  files?: FileStore;
}

/** Bodies larger than this travel through the files bucket (an SQS message holds at most 256 KiB). */
export const INLINE_BODY_BYTES = 128 * 1024;

/** Where a large body is kept: named by its hash, so endpoints that get the same body share one file. */
export const webhookBodyKey = (body: string) => `webhooks/${createHash('sha256').update(body).digest('hex')}.json`;

/** Whether an endpoint hears about an event of something created with `keyId`. */
export function subscribes(hook: Pick<WebhookRecord, 'events' | 'keyIds' | 'disabled'>, event: WebhookEvent, keyId: string | undefined): boolean {
  if (hook.disabled || !hook.events.includes(event)) return false;
  return hook.keyIds.length === 0 || (keyId !== undefined && hook.keyIds.includes(keyId));
}

export class WebhookNotifier {
  constructor(private readonly deps: WebhookNotifierDeps) {}

  async jobCreated(job: JobRecord, tasks: TaskRecord[], present?: Presence): Promise<void> {
    await this.#safely('job.created', job.id, async () => {
      const hooks = await this.#hooks(job, present);
      const { keyId } = originOf(job);
      if (!hooks.some((h) => h.events.some((e) => e === 'job.created' || e === 'task.created'))) return;
      const messages = await this.#fanOut(hooks, 'job.created', job.userId, keyId, () => this.#jobBody('job.created', job, tasks));
      for (const task of tasks) {
        messages.push(...(await this.#fanOut(hooks, 'task.created', job.userId, keyId, () => this.#taskBody('task.created', task, job))));
      }
      await this.#send(messages);
    });
  }

  /** A standalone task was created. */
  async taskCreated(task: TaskRecord, present?: Presence): Promise<void> {
    await this.#safely('task.created', task.id, async () => {
      const hooks = await this.#hooks(task, present);
      await this.#send(await this.#fanOut(hooks, 'task.created', task.userId, originOf(task).keyId, () => this.#taskBody('task.created', task)));
    });
  }

  async taskEnded(task: TaskRecord, present?: Presence): Promise<void> {
    const event: WebhookEvent = task.status === 'finished' ? 'task.finished' : 'task.failed';
    await this.#safely(event, task.id, async () => {
      const hooks = await this.#hooks(task, present);
      if (!hooks.some((h) => h.events.includes(event))) return;
      const job = task.jobId ? await this.deps.tasks.getJob(task.jobId) : undefined;
      const keyId = originOf(job ?? task).keyId;
      await this.#send(await this.#fanOut(hooks, event, task.userId, keyId, () => this.#taskBody(event, task, job)));
    });
  }

  async jobEnded(job: JobRecord, present?: Presence): Promise<void> {
    const event: WebhookEvent = job.status === 'finished' ? 'job.finished' : 'job.failed';
    await this.#safely(event, job.id, async () => {
      const hooks = await this.#hooks(job, present);
      const toUrl = Boolean(job.webhookUrl) && JOB_URL_EVENTS.includes(event);
      const keyId = originOf(job).keyId;
      if (!toUrl && !hooks.some((h) => subscribes(h, event, keyId))) return;
      const tasks = await this.deps.tasks.getTasks(job.taskIds);
      let body: Promise<string> | undefined;
      const make = () => (body ??= this.#jobBody(event, job, tasks));
      const messages = await this.#fanOut(hooks, event, job.userId, keyId, make);
      if (toUrl) messages.push({ userId: job.userId, url: job.webhookUrl!, event, body: await make(), attempt: 1 });
      await this.#send(messages);
    });
  }

  /** The owner's endpoints; none looked up when `present` says there are none (lib/file-api/tasks/event-batch.ts). */
  async #hooks(owner: JobRecord | TaskRecord, present?: Presence): Promise<WebhookRecord[]> {
    if (present?.webhooks === false) return [];
    return this.deps.webhooks.all(owner.userId, isSandbox(owner));
  }

  async #fanOut(
    hooks: WebhookRecord[],
    event: WebhookEvent,
    userId: number,
    keyId: string | undefined,
    body: () => Promise<string>,
  ): Promise<WebhookMessage[]> {
    const targets = hooks.filter((h) => subscribes(h, event, keyId));
    if (!targets.length) return [];
    const made = await body();
    return targets.map((h) => ({ userId, webhookId: h.id, event, body: made, attempt: 1 }));
  }

  #baseUrl(record: Record<string, unknown>): string {
    return originOf(record).baseUrl ?? this.deps.publicBaseUrl ?? '';
  }

  async #jobBody(event: WebhookEvent, job: JobRecord, tasks: TaskRecord[]): Promise<string> {
    const baseUrl = this.#baseUrl(job);
    const links = await this.deps.links.for(tasks, baseUrl);
    return JSON.stringify({ event, job: jobView(job, tasks, { baseUrl, include: new Set(), links }) });
  }

  async #taskBody(event: WebhookEvent, task: TaskRecord, job?: JobRecord): Promise<string> {
    const baseUrl = this.#baseUrl(job ?? task);
    const links = await this.deps.links.for([task], baseUrl);
    return JSON.stringify({ event, task: taskView(task, { baseUrl, include: new Set(), links }) });
  }

  async #send(messages: WebhookMessage[]): Promise<void> {
    if (!messages.length) return;
    const stored = new Map<string, string>();
    for (const message of messages) {
      if (message.body === undefined || Buffer.byteLength(message.body) <= INLINE_BODY_BYTES) continue;
      if (!this.deps.files) throw new Error(`a ${Buffer.byteLength(message.body)}-byte webhook body needs the files store`);
      let key = stored.get(message.body);
      if (!key) {
        key = webhookBodyKey(message.body);
        await this.deps.files.put(key, Buffer.from(message.body), { contentType: 'application/json' });
        stored.set(message.body, key);
      }
      message.bodyKey = key;
      delete message.body;
    }
    await this.deps.queue.sendMany('webhooks', messages);
    this.deps.log.info('webhooks queued', { count: messages.length, events: [...new Set(messages.map((m) => m.event))] });
  }

  async #safely(event: WebhookEvent, id: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (err) {
      this.deps.log.error('webhook notification failed', { event, id, error: err });
    }
  }
}
