/**
 * Pushes job and task events to the socket connections subscribed to their channels (./channels.ts).
 * Called from the same places as the webhook notifier (lib/wiring/tasks.ts): job and task creation,
 * a task's claim (it starts processing), a job's status change, a task's and a job's end.
 *
 * Each event costs ONE query of the owner's subscriptions (./connections.ts); when nobody listens that
 * is all: no view is made, no task or job read. A caller that looked up who listens (`present`,
 * lib/file-api/records/listeners.ts) and found no subscription spares even that query. Otherwise the data is the job or task as the API shows
 * it (lib/file-api/tasks/views.ts, links as in webhooks), made once per event, in frames
 * `42["<event>","<channel>",{"job"|"task":…}]`, one per subscribed connection and channel, posted in
 * parallel. A frame over the gateway's 128 KB carries a smaller object instead (id, status, timestamps,
 * links.self: fetch it for the rest). Connections the gateway says are gone are forgotten.
 *
 * Each subscription's credential is checked again (./credential-check.ts, a few seconds' cache per
 * function instance: about one or two reads per credential and period, not per event): a subscription
 * whose key, token, grant or user ended gets no event, but `subscription_error` (401) for its channel,
 * and is removed; a connection left without subscriptions is hung up on (socket.io's disconnect, then
 * the gateway's close). A check that could not be made holds that subscription's events back this once.
 *
 * Publishing never breaks the pipeline: a failure is logged and the job goes on.
 */
import type { Credentials } from '../../http/credentials.js';
import type { Logger } from '../../kernel/log.js';
import type { TaskLinks } from '../tasks/links.js';
import { isSandbox, type JobRecord, type TaskRecord } from '../records/model.js';
import type { TaskStore } from '../records/store.js';
import type { Presence } from '../records/listeners.js';
import { jobView, taskView } from '../tasks/views.js';
import { originOf } from '../webhooks/model.js';
import { jobChannels, jobEndEvent, taskChannels, taskEndEvent, type JobEvent, type TaskEvent } from './channels.js';
import type { SocketConnections, SubscriptionRecord } from './connections.js';
import { SubscriptionCredentials } from './credential-check.js';
import { eventFrame, MAX_FRAME_BYTES } from './protocol.js';
import { endSubscriptions, type CloseConnection, type PostToConnection } from './socket-server.js';
import type { SubscriptionOwner } from './subscribe.js';

export interface EventPublisherDeps {
  connections: Pick<SocketConnections, 'subscribersOf' | 'close' | 'drop'>;
  post: PostToConnection;
  disconnect: CloseConnection;
  credentials: Pick<Credentials, 'verifyRef'>;
  /** How long a credential's check is trusted (SOCKET_CREDENTIAL_CACHE_SECONDS); 3 s when not given. */
  credentialCacheSeconds?: number;
  now?: () => number;
  tasks: Pick<TaskStore, 'getJob' | 'getTasks'>;
  links: Pick<TaskLinks, 'for'>;
  log: Logger;
  /** Base of `links.self` when the job or task did not record the one it was created under. */
  publicBaseUrl?: string;
}

/** One event and how to make its data, only called when someone listens. */
interface Outgoing {
  event: JobEvent | TaskEvent;
  id: string;
  channels: string[];
  data: () => Promise<{ job: Record<string, unknown> } | { task: Record<string, unknown> }>;
}

/** What a frame too large for the gateway carries instead. */
const SMALL_FIELDS = ['id', 'job_id', 'name', 'operation', 'status', 'percent', 'created_at', 'started_at', 'ended_at', 'links'];
const small = (view: Record<string, unknown>) => Object.fromEntries(SMALL_FIELDS.filter((f) => f in view).map((f) => [f, view[f]]));

export function frameFor(event: string, channel: string, data: { job: Record<string, unknown> } | { task: Record<string, unknown> }): string {
  const frame = eventFrame(event, channel, data);
  if (Buffer.byteLength(frame) <= MAX_FRAME_BYTES) return frame;
  return eventFrame(event, channel, 'job' in data ? { job: small(data.job) } : { task: small(data.task) });
}

export class EventPublisher {
  readonly #credentials: SubscriptionCredentials;

  constructor(private readonly deps: EventPublisherDeps) {
    this.#credentials = new SubscriptionCredentials(deps.credentials, { seconds: deps.credentialCacheSeconds ?? 3, now: deps.now });
  }

  /** `job.created` and each task's `task.created`: one query for all of them. */
  async jobCreated(job: JobRecord, tasks: TaskRecord[], present?: Presence): Promise<void> {
    await this.#publish(job, [this.#job('job.created', job, tasks), ...tasks.map((t) => this.#task('task.created', t, job))], present);
  }

  /** A standalone task was created. */
  async taskCreated(task: TaskRecord, present?: Presence): Promise<void> {
    await this.#publish(task, [this.#task('task.created', task)], present);
  }

  /** A task changed without ending: claimed (processing), or its progress. */
  async taskUpdated(task: TaskRecord, present?: Presence): Promise<void> {
    await this.#publish(task, [this.#task('task.updated', task)], present);
  }

  async taskEnded(task: TaskRecord, present?: Presence): Promise<void> {
    await this.#publish(task, [this.#task(taskEndEvent(task), task)], present);
  }

  /** A job's status changed without ending (it started processing). */
  async jobUpdated(job: JobRecord, present?: Presence): Promise<void> {
    await this.#publish(job, [this.#job('job.updated', job)], present);
  }

  async jobEnded(job: JobRecord, present?: Presence): Promise<void> {
    await this.#publish(job, [this.#job(jobEndEvent(job), job)], present);
  }

  #baseUrl(record: Record<string, unknown>): string {
    return originOf(record).baseUrl ?? this.deps.publicBaseUrl ?? '';
  }

  #job(event: JobEvent, job: JobRecord, tasks?: TaskRecord[]): Outgoing {
    return {
      event,
      id: job.id,
      channels: jobChannels(job),
      data: async () => {
        const shown = tasks ?? (await this.deps.tasks.getTasks(job.taskIds));
        const baseUrl = this.#baseUrl(job);
        const links = await this.deps.links.for(shown, baseUrl);
        return { job: jobView(job, shown, { baseUrl, include: new Set(), links }) };
      },
    };
  }

  #task(event: TaskEvent, task: TaskRecord, job?: JobRecord): Outgoing {
    return {
      event,
      id: task.id,
      channels: taskChannels(task),
      data: async () => {
        // Tasks of a job record their base on the job.
        const origin = originOf(task).baseUrl || !task.jobId ? task : (job ?? (await this.deps.tasks.getJob(task.jobId)) ?? task);
        const baseUrl = this.#baseUrl(origin);
        const links = await this.deps.links.for([task], baseUrl);
        return { task: taskView(task, { baseUrl, include: new Set(), links }) };
      },
    };
  }

  async #publish(owner: JobRecord | TaskRecord, outgoing: Outgoing[], present?: Presence): Promise<void> {
    // The caller knows nobody subscribed (lib/file-api/tasks/event-batch.ts): no query.
    if (present?.sockets === false) return;
    try {
      // Only subscriptions to a channel of these events have their credential checked.
      const listening = (await this.deps.connections.subscribersOf(owner.userId, isSandbox(owner))).filter((s) => outgoing.some((o) => o.channels.includes(s.channel)));
      if (!listening.length) return;
      const { subscribers, ended } = await this.#current(listening, { userId: owner.userId, sandbox: isSandbox(owner) });
      const cut = endSubscriptions(ended, this.deps);
      const posts: Array<{ sub: SubscriptionRecord; frame: string; event: string }> = [];
      for (const out of outgoing) {
        const targets = subscribers.filter((s) => out.channels.includes(s.channel));
        if (!targets.length) continue;
        const data = await out.data();
        const frames = new Map<string, string>();
        for (const sub of targets) {
          let frame = frames.get(sub.channel);
          if (!frame) frames.set(sub.channel, (frame = frameFor(out.event, sub.channel, data)));
          posts.push({ sub, frame, event: out.event });
        }
      }
      await Promise.all([this.#post(posts), cut]);
    } catch (err) {
      this.deps.log.error('socket event publication failed', { events: outgoing.map((o) => o.event), id: outgoing[0]?.id, error: err });
    }
  }

  /** The subscriptions whose credential still holds, and those whose credential ended. */
  async #current(subs: SubscriptionRecord[], owner: SubscriptionOwner): Promise<{ subscribers: SubscriptionRecord[]; ended: SubscriptionRecord[] }> {
    const verdicts = await Promise.all(
      subs.map((sub) =>
        this.#credentials.allows(sub, owner).catch((err: unknown) => {
          this.deps.log.warn('socket subscription credential not checked', { connectionId: sub.connectionId, error: err });
          return undefined;
        }),
      ),
    );
    return { subscribers: subs.filter((_, i) => verdicts[i] === true), ended: subs.filter((_, i) => verdicts[i] === false) };
  }

  /** Frames to one connection go in order, connections in parallel. */
  async #post(posts: Array<{ sub: SubscriptionRecord; frame: string; event: string }>): Promise<void> {
    if (!posts.length) return;
    const byConnection = new Map<string, string[]>();
    for (const p of posts) byConnection.set(p.sub.connectionId, [...(byConnection.get(p.sub.connectionId) ?? []), p.frame]);
    await Promise.all(
      [...byConnection].map(async ([connectionId, frames]) => {
        try {
          for (const frame of frames) {
            if (!(await this.deps.post(connectionId, frame))) {
              await this.deps.connections.close(connectionId);
              return;
            }
          }
        } catch (err) {
          this.deps.log.warn('socket event not delivered', { connectionId, error: err });
        }
      }),
    );
    this.deps.log.info('socket events sent', { frames: posts.length, connections: byConnection.size, events: [...new Set(posts.map((p) => p.event))] });
  }
}
