/**
 * Socket connections and their subscriptions in the state table.
 *
 * - A connection: `socket#connections` / `{connection id}`, with `expiresAt` a little past the
 *   gateway's 2-hour limit (TTL removes what a lost `$disconnect` left) and `subs`, the keys of its
 *   subscriptions, so that closing it finds them without a scan. All connections share one partition:
 *   the ping function reads them with one paged query.
 * - A subscription: `socket#subs#{live|sandbox}#{owner user id}` / `{channel}|{connection id}`. Every
 *   channel belongs to one user (the job's, the task's or the named user), so everything a user's job
 *   or task event may reach is one partition: publishing reads it with ONE query, and reads an empty
 *   partition when nobody listens. Sandbox and live subscriptions of a user are apart, as their records.
 */
import { ConditionFailedError, epochSeconds, queryAll, type Item, type StateStore } from '../state/port.js';

/** The gateway closes a connection after 2 hours; its record lives a little longer. */
export const CONNECTION_SECONDS = 2 * 60 * 60 + 10 * 60;

const CONNECTIONS_PK = 'socket#connections';

export interface ConnectionRecord extends Item {
  connectedAt: string;
  expiresAt: number;
  /** `{subscription pk}|{subscription sk}` of each subscription. */
  subs?: Set<string>;
}

export interface SubscriptionRecord extends Item {
  channel: string;
  connectionId: string;
  expiresAt: number;
}

const connectionKey = (connectionId: string) => ({ pk: CONNECTIONS_PK, sk: connectionId });
export const subscriptionsPk = (userId: number, sandbox: boolean) => `socket#subs#${sandbox ? 'sandbox' : 'live'}#${userId}`;
const subscriptionKey = (userId: number, sandbox: boolean, channel: string, connectionId: string) => ({
  pk: subscriptionsPk(userId, sandbox),
  sk: `${channel}|${connectionId}`,
});
const memberOf = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;
const keyOfMember = (member: string) => {
  const bar = member.indexOf('|');
  return { pk: member.slice(0, bar), sk: member.slice(bar + 1) };
};

export class SocketConnections {
  constructor(private readonly state: StateStore) {}

  async open(connectionId: string, now = Date.now()): Promise<void> {
    await this.state.put({ ...connectionKey(connectionId), connectedAt: new Date(now).toISOString(), expiresAt: epochSeconds(now) + CONNECTION_SECONDS });
  }

  /** Forgets the connection and every subscription it made (on `$disconnect`, or when the gateway says it is gone). */
  async close(connectionId: string): Promise<void> {
    const gone = await this.state.delete<ConnectionRecord>(connectionKey(connectionId));
    await Promise.all([...(gone?.subs ?? [])].map((member) => this.state.delete(keyOfMember(member))));
  }

  /**
   * Records a subscription of an open connection to a channel of `owner`'s (sandbox or live) records.
   * False when the connection is not open (any more).
   */
  async subscribe(connectionId: string, owner: { userId: number; sandbox: boolean }, channel: string): Promise<boolean> {
    const key = subscriptionKey(owner.userId, owner.sandbox, channel, connectionId);
    let connection: ConnectionRecord;
    try {
      connection = await this.state.update<ConnectionRecord>(connectionKey(connectionId), { add: { subs: new Set([memberOf(key)]) } }, { condition: { exists: true } });
    } catch (err) {
      if (err instanceof ConditionFailedError) return false;
      throw err;
    }
    const record: SubscriptionRecord = { ...key, channel, connectionId, expiresAt: connection.expiresAt };
    await this.state.put(record);
    return true;
  }

  /** Ends the connection's subscriptions to `channel` (whoever owned it). */
  async unsubscribe(connectionId: string, channel: string): Promise<void> {
    const connection = await this.state.get<ConnectionRecord>(connectionKey(connectionId), { consistent: true });
    const members = [...(connection?.subs ?? [])].filter((m) => keyOfMember(m).sk === `${channel}|${connectionId}`);
    if (!members.length) return;
    await Promise.all(members.map((m) => this.state.delete(keyOfMember(m))));
    await this.state.update(connectionKey(connectionId), { delete: { subs: new Set(members) } }, { condition: { exists: true } }).catch((err: unknown) => {
      if (!(err instanceof ConditionFailedError)) throw err;
    });
  }

  /**
   * Every subscription to `owner`'s channels: one query, made afresh for each event, so a subscription
   * is seen by every event looked up after it was recorded. (Lookups are not shared between events: a
   * shared one would answer a later event with what was there before, and a stuck one would hold
   * every event of the owner behind it.)
   */
  subscribersOf(userId: number, sandbox: boolean): Promise<SubscriptionRecord[]> {
    return queryAll<SubscriptionRecord>(this.state, subscriptionsPk(userId, sandbox));
  }

  /** The open connections, a page at a time. */
  async page(cursor?: string): Promise<{ ids: string[]; cursor?: string }> {
    const page = await this.state.query<ConnectionRecord>(CONNECTIONS_PK, { cursor, limit: 500 });
    return { ids: page.items.map((c) => c.sk), cursor: page.cursor };
  }
}
