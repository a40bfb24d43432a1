/**
 * Job and task events (webhooks and socket frames) raised during a piece of work, published together
 * after it: one look-up of who listens (lib/file-api/records/listeners.ts) for all of them instead of two
 * queries per event. The runner holds the events of a run's start and of its end (with the dependants
 * run inline after it), POST /v2/jobs those of the job's creation and inline runs.
 *
 * The look-up is made after the last of the held events was written, so an endpoint or subscription
 * stored before any of them is seen. Events go out in the order raised. Outside a held piece of work an
 * event is published at once, with its own look-up. A look-up that fails counts as "someone may
 * listen": the events go the full way, each with its own queries, as before.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../../kernel/log.js';
import { ANYONE, type Presence } from '../records/listeners.js';

/** Whose event it is: one look-up per owner. */
export interface EventOwner {
  userId: number;
  sandbox: boolean;
}

/** Publishes one event, knowing who may listen. */
export type Publish = (present: Presence) => Promise<void>;

interface Held {
  owner: EventOwner;
  publish: Publish;
}

export interface EventBatchDeps {
  presence: (userId: number, sandbox: boolean) => Promise<Presence>;
  log: Logger;
}

export class EventBatches {
  readonly #held = new AsyncLocalStorage<Held[]>();

  constructor(private readonly deps: EventBatchDeps) {}

  /** Runs `work` holding the events it raises, then publishes them. Inside another hold: joins it. */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    if (this.#held.getStore()) return work();
    const held: Held[] = [];
    try {
      return await this.#held.run(held, work);
    } finally {
      await this.#publish(held);
    }
  }

  /** An event: held when raised inside `hold`, else published now. */
  async raise(owner: EventOwner, publish: Publish): Promise<void> {
    const held = this.#held.getStore();
    if (held) held.push({ owner, publish });
    else await this.#publish([{ owner, publish }]);
  }

  async #publish(held: Held[]): Promise<void> {
    if (!held.length) return;
    const looked = new Map<string, Promise<Presence>>();
    for (const { owner, publish } of held) {
      const key = `${owner.userId}:${owner.sandbox}`;
      let present = looked.get(key);
      if (!present) {
        present = this.deps.presence(owner.userId, owner.sandbox).catch((error: unknown) => {
          this.deps.log.warn('listeners not looked up; events go the full way', { userId: owner.userId, error });
          return ANYONE;
        });
        looked.set(key, present);
      }
      // Each publication logs its own failures (webhooks/events.ts, events/publisher.ts).
      await publish(await present).catch((error: unknown) => this.deps.log.error('event not published', { error }));
    }
  }
}
