/**
 * Whether anyone may listen to a user's job and task events, in one small item per user and mode:
 * `listeners#{live|sandbox}#{user id}` / `listeners`, so that an event nobody listens to costs one read
 * instead of a query of the webhook endpoints and one of the socket subscriptions, each finding nothing.
 *
 * - `webhooks`: the user's endpoints, counted up before an endpoint is stored and down after one is
 *   deleted, so never below the truth;
 * - `socketsUntil` (epoch seconds): set, before a subscription is stored, past the longest a connection
 *   lives (the gateway closes it after 2 hours): every connection that could hold one is gone by then.
 *
 * An event reads the item after it is written (strongly consistent) and looks up endpoints or
 * subscribers only when it says there may be some; since the marks are written before what they
 * announce, an endpoint or subscription stored before the event is never missed. A user without the
 * item (none recorded yet: endpoints and subscriptions made before it was kept) is looked up the full
 * way once, and the item made from what that found (the first writer's item stands).
 */
import { ConditionFailedError, epochSeconds, type Condition, type Item, type StateStore, type Update } from '../../adapters/state/port.js';

export interface ListenersRecord extends Item {
  webhooks?: number;
  socketsUntil?: number;
}

/** Who may listen: endpoints, socket subscriptions. */
export interface Presence {
  webhooks: boolean;
  sockets: boolean;
}

/** Someone may listen, of both kinds: what a look-up that failed answers, so that nothing is skipped. */
export const ANYONE: Presence = { webhooks: true, sockets: true };

/** How long a socket subscription may live after it is made: a connection's longest life and a margin. */
export const SOCKET_SUBSCRIPTION_SECONDS = 2 * 60 * 60 + 10 * 60;

export const listenersKey = (userId: number, sandbox: boolean) => ({ pk: `listeners#${sandbox ? 'sandbox' : 'live'}#${userId}`, sk: 'listeners' });

/** The full look-up of a user without the item: how many endpoints they have, whether they have subscriptions. */
export type PresenceFinder = (userId: number, sandbox: boolean) => Promise<{ webhooks: number; sockets: boolean }>;

export class Listeners {
  constructor(
    private readonly state: StateStore,
    private readonly find: PresenceFinder,
  ) {}

  /** Who may listen to an event of the user's written before this call. */
  async presence(userId: number, sandbox: boolean, now = Date.now()): Promise<Presence> {
    const record = (await this.state.get<ListenersRecord>(listenersKey(userId, sandbox), { consistent: true })) ?? (await this.#make(userId, sandbox, now));
    return { webhooks: (record.webhooks ?? 0) > 0, sockets: (record.socketsUntil ?? 0) > epochSeconds(now) };
  }

  /** Before an endpoint is stored. */
  async webhookAdded(userId: number, sandbox: boolean): Promise<void> {
    await this.#onRecord(userId, sandbox, { add: { webhooks: 1 } });
  }


  /** Before a subscription is stored: subscriptions may exist until SOCKET_SUBSCRIPTION_SECONDS from now. */
  async socketsOpen(owner: { userId: number; sandbox: boolean }, now = Date.now()): Promise<void> {
    const until = epochSeconds(now) + SOCKET_SUBSCRIPTION_SECONDS;
    // A later mark that is there already stands.
    await this.#onRecord(owner.userId, owner.sandbox, { set: { socketsUntil: until } }, { absentOrBelow: { socketsUntil: until } }).catch(ignoreCondition);
  }

  /** An update of the user's item, made first (counted) when there is none, so that a count never starts from nothing. */
  async #onRecord(userId: number, sandbox: boolean, update: Update, condition: Condition = {}): Promise<void> {
    const key = listenersKey(userId, sandbox);
    try {
      await this.state.update(key, update, { condition: { exists: true, ...condition } });
    } catch (err) {
      if (!(err instanceof ConditionFailedError) || (await this.state.get(key, { consistent: true }))) throw err;
      await this.#make(userId, sandbox);
      await this.state.update(key, update, { condition });
    }
  }

  /** The item of a user without one, from the full look-up; the first writer's stands. */
  async #make(userId: number, sandbox: boolean, now = Date.now()): Promise<ListenersRecord> {
    const found = await this.find(userId, sandbox);
    const record: ListenersRecord = { ...listenersKey(userId, sandbox), userId, webhooks: found.webhooks, socketsUntil: found.sockets ? epochSeconds(now) + SOCKET_SUBSCRIPTION_SECONDS : 0 };
    try {
      await this.state.put(record, { condition: { exists: false } });
      return record;
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
      return (await this.state.get<ListenersRecord>(listenersKey(userId, sandbox), { consistent: true })) ?? record;
    }
  }
}

/**
 * After an endpoint was deleted: one fewer (a user without the item is counted afresh when it is made).
 * Needs no look-up, so any store that deletes endpoints does it (lib/file-api/webhooks/store.ts).
 */
export async function webhookRemoved(state: StateStore, userId: number, sandbox: boolean): Promise<void> {
  await state.update(listenersKey(userId, sandbox), { add: { webhooks: -1 } }, { condition: { exists: true } }).catch(ignoreCondition);
}

function ignoreCondition(err: unknown): void {
  if (!(err instanceof ConditionFailedError)) throw err;
}
