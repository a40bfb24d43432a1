/**
 * Socket connections and their subscriptions in the state table.
 *
 * - A connection: `socket#connections[#s<n>]` / `{connection id}`, with `expiresAt` a little past the
 *   gateway's 2-hour limit (TTL removes what a lost `$disconnect` left) and `subs`, the keys of its
 *   subscriptions, so that closing it finds them without a scan. The connections are spread over
 *   CONNECTION_SHARDS partitions by a hash of their id (one partition took every connect, subscribe
 *   and close, and one paged query could not be pinged past ~50 k sockets in the ping's timeout): the
 *   ping reads the shards in parallel. Shard 0 is the key of before; a connection recorded there before
 *   the sharding is looked for there when its own shard has no record (for the 2 hours such a
 *   connection can live).
 * - A subscription: `socket#subs#{live|sandbox}#{owner user id}` / `{channel}|{connection id}`. Every
 *   channel belongs to one user (the job's, the task's or the named user), so everything a user's job
 *   or task event may reach is one partition: publishing reads it with ONE query, and reads an empty
 *   partition when nobody listens. Sandbox and live subscriptions of a user are apart, as their records.
 *   It records the credential that subscribed (its kind and hash, never the bearer), which every
 *   event checks again (./publisher.ts).
 * - Connections that have not subscribed yet (`pending`: their source address) are counted, per
 *   address (`socket#pending` / `addr#{address}`) and in total (`socket#pending` / `total`): a connect
 *   over either cap is refused. The count goes down once, by whoever takes `pending` off the
 *   connection: its first subscription, or its close. Each count is a conditional add, so concurrent
 *   connects never get past the cap; a connection whose `$disconnect` was lost is closed by the ping
 *   (./socket-server.ts), which gives its room back.
 */
import type { CredentialRef } from '../../http/credentials.js';
import { ConditionFailedError, epochSeconds, queryAll, type Condition, type Item, type ItemKey, type StateStore, type Update } from '../../adapters/state/port.js';
import { shardKey, shardOf } from '../../kernel/shards.js';

/** The gateway closes a connection after 2 hours; its record lives a little longer. */
export const CONNECTION_SECONDS = 2 * 60 * 60 + 10 * 60;

const CONNECTIONS_PK = 'socket#connections';
/** 16 partitions: a ping of 16 shards at once covers some 16 × 50 k sockets. */
export const CONNECTION_SHARDS = 16;

const PENDING_PK = 'socket#pending';

export interface ConnectionRecord extends Item {
  connectedAt: string;
  expiresAt: number;
  /** `{subscription pk}|{subscription sk}` of each subscription. */
  subs?: Set<string>;
  /** The source address, while the connection has not subscribed (counted against the caps). */
  pending?: string;
  /** The credentials its subscriptions were made with (`credentialMember`), for the ping's check. */
  creds?: Set<string>;
}

export interface SubscriptionRecord extends Item {
  channel: string;
  connectionId: string;
  expiresAt: number;
  /** The credential that subscribed (absent on records made before it was kept: not trusted). */
  credential?: CredentialRef;
  /** Its public id (an API key's id, `oauth-<grant id>`): for the logs. */
  keyId?: string;
}

export interface OpenConnection {
  id: string;
  /** Epoch milliseconds (NaN when the record's time cannot be read). */
  connectedAt: number;
  pending: boolean;
  /** `credentialMember`s of its subscriptions. */
  creds: string[];
}

/** How many connections that have not subscribed may be open, from one source address and in total. */
export interface PendingCaps {
  pendingPerAddress: number;
  pendingTotal: number;
}

/** Without caps given (tests, tools): none in effect. */
const NO_CAPS: PendingCaps = { pendingPerAddress: Number.MAX_SAFE_INTEGER, pendingTotal: Number.MAX_SAFE_INTEGER };

/** Where a connection's record is (made since the sharding). */
export const connectionKey = (connectionId: string) => ({ pk: shardKey(CONNECTIONS_PK, shardOf(connectionId, CONNECTION_SHARDS)), sk: connectionId });
/** Where a connection recorded before the sharding is, when that is not where it would be now. */
const legacyKey = (connectionId: string) => (connectionKey(connectionId).pk === CONNECTIONS_PK ? undefined : { pk: CONNECTIONS_PK, sk: connectionId });
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

/** A credential of a connection's subscriptions and whose events they hear: `{user}|{live|sandbox}|{kind}|{hash}`. */
export const credentialMember = (owner: { userId: number; sandbox: boolean }, ref: CredentialRef) => `${owner.userId}|${owner.sandbox ? 'sandbox' : 'live'}|${ref.kind}|${ref.hash}`;

export function parseCredentialMember(member: string): { owner: { userId: number; sandbox: boolean }; ref: CredentialRef } | undefined {
  const [user, mode, kind, hash] = member.split('|');
  if (!/^\d+$/.test(user ?? '') || (kind !== 'api-key' && kind !== 'oauth') || !hash) return undefined;
  return { owner: { userId: Number(user), sandbox: mode === 'sandbox' }, ref: { kind, hash } };
}

const pendingKeys = (address: string) => [
  { pk: PENDING_PK, sk: `addr#${address}` },
  { pk: PENDING_PK, sk: 'total' },
];

export class SocketConnections {
  constructor(
    private readonly state: StateStore,
    private readonly caps: PendingCaps = NO_CAPS,
  ) {}

  /**
   * Records a new connection from `address`, counted as not subscribed; false (and nothing kept) when
   * that address or all addresses have as many such connections as the caps allow.
   */
  async open(connectionId: string, opts: { address?: string; now?: number } = {}): Promise<boolean> {
    const now = opts.now ?? Date.now();
    const address = opts.address || 'unknown';
    // The record first: if this function dies before the counts, the ping's close of the record takes
    // back at most a count that was never added (a count too low by one, never one that stays too high).
    await this.state.put({ ...connectionKey(connectionId), connectedAt: new Date(now).toISOString(), expiresAt: epochSeconds(now) + CONNECTION_SECONDS, pending: address });
    const [perAddress, total] = pendingKeys(address);
    const counted: Array<{ pk: string; sk: string }> = [];
    for (const [key, cap] of [
      [perAddress!, this.caps.pendingPerAddress],
      [total!, this.caps.pendingTotal],
    ] as const) {
      try {
        if (cap < 1) throw new ConditionFailedError(key);
        await this.state.update(key, { add: { count: 1 } }, { condition: { absentOrBelow: { count: cap } } });
        counted.push(key);
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
        await this.state.delete(connectionKey(connectionId));
        await Promise.all(counted.map((k) => this.#countDown(k)));
        return false;
      }
    }
    return true;
  }

  /** Forgets the connection and every subscription it made (on `$disconnect`, or when the gateway says it is gone). */
  async close(connectionId: string): Promise<void> {
    const gone = await this.#at(connectionId, (key) => this.state.delete<ConnectionRecord>(key));
    await Promise.all([
      ...[...(gone?.subs ?? [])].map((member) => this.state.delete(keyOfMember(member))),
      ...(gone?.pending ? pendingKeys(gone.pending).map((k) => this.#countDown(k)) : []),
    ]);
  }

  /**
   * `op` on the connection's record: at its shard, or where it was recorded before the sharding when
   * its shard has none (`op` answers undefined for a key without the record).
   */
  async #at<T>(connectionId: string, op: (key: ItemKey) => Promise<T | undefined>): Promise<T | undefined> {
    const found = await op(connectionKey(connectionId));
    const legacy = legacyKey(connectionId);
    return found === undefined && legacy ? op(legacy) : found;
  }

  /** The connection's record after `update`, or undefined when `condition` does not hold there. */
  async #updateIf(connectionId: string, update: Update, condition: Condition): Promise<ConnectionRecord | undefined> {
    return this.#at(connectionId, async (key) => {
      try {
        return await this.state.update<ConnectionRecord>(key, update, { condition });
      } catch (err) {
        if (err instanceof ConditionFailedError) return undefined;
        throw err;
      }
    });
  }

  /** One less connection counted (never below zero). */
  async #countDown(key: { pk: string; sk: string }): Promise<void> {
    await this.state.update(key, { add: { count: -1 } }, { condition: { atLeast: { count: 1 } } }).catch((err: unknown) => {
      if (!(err instanceof ConditionFailedError)) throw err;
    });
  }

  /** The connection subscribed: it counts no more (only the first subscription takes it off). */
  async #settle(connectionId: string, address: string): Promise<void> {
    if (!(await this.#updateIf(connectionId, { remove: ['pending'] }, { equals: { pending: address } }))) return;
    await Promise.all(pendingKeys(address).map((k) => this.#countDown(k)));
  }

  /**
   * Records a subscription of an open connection to a channel of `owner`'s (sandbox or live) records.
   * False when the connection is not open (any more).
   */
  async subscribe(connectionId: string, owner: { userId: number; sandbox: boolean }, channel: string, credential: CredentialRef & { keyId: string }): Promise<boolean> {
    const key = subscriptionKey(owner.userId, owner.sandbox, channel, connectionId);
    const connection = await this.#updateIf(connectionId, { add: { subs: new Set([memberOf(key)]), creds: new Set([credentialMember(owner, credential)]) } }, { exists: true });
    if (!connection) return false;
    const record: SubscriptionRecord = { ...key, channel, connectionId, expiresAt: connection.expiresAt, credential: { kind: credential.kind, hash: credential.hash }, keyId: credential.keyId };
    await this.state.put(record);
    if (connection.pending) await this.#settle(connectionId, connection.pending);
    return true;
  }

  /**
   * Ends these subscriptions (of one owner: their credential ended). Returns the connections left
   * with no subscription at all, which the caller closes.
   */
  async drop(subs: SubscriptionRecord[]): Promise<string[]> {
    const byConnection = new Map<string, SubscriptionRecord[]>();
    for (const sub of subs) byConnection.set(sub.connectionId, [...(byConnection.get(sub.connectionId) ?? []), sub]);
    const emptied = await Promise.all(
      [...byConnection].map(async ([connectionId, theirs]) => {
        await Promise.all(theirs.map((s) => this.state.delete({ pk: s.pk, sk: s.sk })));
        const left = await this.#updateIf(connectionId, { delete: { subs: new Set(theirs.map(memberOf)) } }, { exists: true });
        return left?.subs?.size ? undefined : connectionId;
      }),
    );
    return emptied.filter((id): id is string => id !== undefined);
  }

  /** Ends the connection's subscriptions to `channel` (whoever owned it). */
  async unsubscribe(connectionId: string, channel: string): Promise<void> {
    const connection = await this.#get(connectionId);
    const members = [...(connection?.subs ?? [])].filter((m) => keyOfMember(m).sk === `${channel}|${connectionId}`);
    if (!members.length) return;
    await Promise.all(members.map((m) => this.state.delete(keyOfMember(m))));
    await this.#updateIf(connectionId, { delete: { subs: new Set(members) } }, { exists: true });
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

  /**
   * The open connections of one shard (0 to CONNECTION_SHARDS - 1), a page at a time: each with when it connected, whether it has not subscribed
   * yet and the credentials of its subscriptions.
   */
  async page(shard: number, cursor?: string): Promise<{ connections: OpenConnection[]; cursor?: string }> {
    const page = await this.state.query<ConnectionRecord>(shardKey(CONNECTIONS_PK, shard), { cursor, limit: 500 });
    return {
      connections: page.items.map((c) => ({ id: c.sk, connectedAt: Date.parse(c.connectedAt), pending: typeof c.pending === 'string', creds: [...(c.creds ?? [])] })),
      cursor: page.cursor,
    };
  }

  /** The connection's subscriptions made with this credential (one batch read). */
  async subscriptionsWith(connectionId: string, ref: CredentialRef): Promise<SubscriptionRecord[]> {
    const connection = await this.#get(connectionId);
    const subs = await this.state.getMany<SubscriptionRecord>([...(connection?.subs ?? [])].map(keyOfMember));
    return subs.filter((s) => s.credential?.kind === ref.kind && s.credential.hash === ref.hash);
  }

  /** The credential no longer counts for the connection (its subscriptions were ended). */
  async forgetCredential(connectionId: string, member: string): Promise<void> {
    await this.#updateIf(connectionId, { delete: { creds: new Set([member]) } }, { exists: true });
  }

  #get(connectionId: string): Promise<ConnectionRecord | undefined> {
    return this.#at(connectionId, (key) => this.state.get<ConnectionRecord>(key, { consistent: true }));
  }
}
