/**
 * Events follow the credential (issue 25, finding 2): a socket subscribed with an API key or an OAuth
 * access token hears no further event once that key is revoked, the token or its grant revoked, its
 * client deleted or its user disabled, and is told so (`subscription_error` with 401, then socket.io's
 * disconnect of the namespace) and closed; a socket of the same user subscribed with a credential that
 * is still good goes on hearing. Real state store (dynalite), real credential checks, real
 * subscriptions; only the gateway's management API is a recorder. The publisher's clock is injected,
 * so its short credential cache is stepped over without waiting.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '#lib/access/auth/accounts.js';
import { Credentials } from '#lib/http/credentials.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { SocketConnections } from '#lib/file-api/events/connections.js';
import { EventPublisher } from '#lib/file-api/events/publisher.js';
import { onFrame, pingAll } from '#lib/file-api/events/socket-server.js';
import { createLogger } from '#lib/kernel/log.js';
import { OAuthClients } from '#lib/access/oauth/clients.js';
import { TokenStore } from '#lib/access/oauth/tokens.js';
import type { Item, StateStore } from '#lib/adapters/state/port.js';
import type { JobRecord } from '#lib/file-api/records/model.js';
import { startStateBackend } from '../support/dynalite.js';

const log = createLogger({}, { level: 'silent' } as never);
const CACHE_SECONDS = 3;

let backend: Awaited<ReturnType<typeof startStateBackend>>;
beforeAll(async () => {
  backend = await startStateBackend();
});
afterAll(() => backend?.close());

/** Counts the state store's calls by method (the measure of backend calls per event). */
function counting(store: StateStore) {
  const calls: Record<string, number> = {};
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls[String(prop)] = (calls[String(prop)] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls, reset: () => Object.keys(calls).forEach((k) => delete calls[k]) };
}

interface World {
  userId: number;
  keys: ApiKeys;
  tokens: TokenStore;
  accounts: Accounts;
  clients: OAuthClients;
  connections: SocketConnections;
  frames: Map<string, string[]>;
  closed: string[];
  clock: { now: number };
  counter: ReturnType<typeof counting>;
  publisher: EventPublisher;
  /** Opens a connection and subscribes it to the user's jobs channel with `bearer`. */
  socket(connectionId: string, bearer: string): Promise<void>;
  jobEvent(): Promise<void>;
  /** The scheduled ping's round, over this user's connections only. */
  ping(): Promise<void>;
  /** The job events a connection heard. */
  heard(connectionId: string): string[];
}

let n = 0;
async function world(): Promise<World> {
  const counter = counting(backend.store);
  const store = counter.store;
  const accounts = new Accounts(store, { username: 'local', email: 'local@example.com', credits: 'unlimited' });
  const { user } = await accounts.create({ email: `socket-${++n}-${Date.now()}@example.com`, username: `Socket ${n}`, password: 'socket-password-123456' });
  const keys = new ApiKeys(store);
  const tokens = new TokenStore(store, { codeSeconds: 60, accessSeconds: 3600, refreshSeconds: 86400 });
  const credentials = new Credentials(store, keys, tokens);
  const connections = new SocketConnections(store);
  const frames = new Map<string, string[]>();
  const closed: string[] = [];
  const post = async (id: string, frame: string) => (frames.set(id, [...(frames.get(id) ?? []), frame]), !closed.includes(id));
  const disconnect = async (id: string) => void closed.push(id);
  const clock = { now: Date.now() };
  const tasks = { getJob: async () => undefined, getTask: async () => undefined, getTasks: async () => [] };
  const publisher = new EventPublisher({
    connections,
    post,
    disconnect,
    credentials,
    credentialCacheSeconds: CACHE_SECONDS,
    now: () => clock.now,
    tasks,
    links: { for: async () => ({ fileUrl: () => undefined, form: () => undefined }) } as never,
    log,
    publicBaseUrl: 'https://api.example.com',
  } as ConstructorParameters<typeof EventPublisher>[0]);
  const channel = `private-user.${user.id}.jobs`;
  let jobs = 0;
  return {
    userId: user.id,
    keys,
    tokens,
    accounts,
    clients: new OAuthClients(store),
    connections,
    frames,
    closed,
    clock,
    counter,
    publisher,
    async socket(connectionId, bearer) {
      await connections.open(connectionId);
      const frame = `42${JSON.stringify(['subscribe', { channel, auth: { headers: { Authorization: `Bearer ${bearer}` } } }])}`;
      await onFrame(connectionId, frame, { connections, post, credentials, tasks, log });
      const subs = await connections.subscribersOf(user.id, false);
      expect(subs.map((s) => s.connectionId), 'subscribed').toContain(connectionId);
    },
    async jobEvent() {
      const job = { pk: `job#j${++jobs}`, sk: 'job', id: `j${jobs}-${connectionsTag()}`, userId: user.id, tag: null, status: 'processing', createdAt: new Date().toISOString(), startedAt: null, endedAt: null, expiresAt: 0, taskIds: [], webhookUrl: null } as unknown as JobRecord;
      await publisher.jobUpdated(job);
    },
    async ping() {
      const mine = new Set((await connections.subscribersOf(user.id, false)).map((s) => s.connectionId));
      const only = (id: string) => mine.has(id);
      await pingAll({
        connections,
        credentials,
        post: async (id, frame) => (only(id) ? post(id, frame) : true),
        disconnect: async (id) => (only(id) ? disconnect(id) : undefined),
        subscribeSeconds: 3600,
        // A round past the connections' opening.
        now: () => Date.now() + 60_000,
        log,
      });
    },
    heard: (id) => (frames.get(id) ?? []).filter((f) => /^42\["job\./.test(f)),
  };
}
const connectionsTag = () => Math.random().toString(36).slice(2, 8);

/** After the revocation: the next event past the cache, and what each socket got. */
async function afterRevocation(w: World, revoked: string[], valid: string[]) {
  const before = new Map([...revoked, ...valid].map((id) => [id, w.heard(id).length]));
  w.clock.now += (CACHE_SECONDS + 1) * 1000;
  await w.jobEvent();
  await w.jobEvent();
  for (const id of revoked) {
    expect(w.heard(id).length, `${id} heard an event after its credential ended`).toBe(before.get(id));
    const frames = w.frames.get(id) ?? [];
    expect(frames, `${id} is told`).toContain(`42["subscription_error","private-user.${w.userId}.jobs",401]`);
    expect(frames.at(-1), `${id} gets the namespace's disconnect last`).toBe('41');
    expect(w.closed, `${id} is closed`).toContain(id);
  }
  for (const id of valid) expect(w.heard(id).length, `${id} still hears`).toBe(before.get(id)! + 2);
  const left = (await w.connections.subscribersOf(w.userId, false)).map((s) => s.connectionId);
  for (const id of revoked) expect(left, `${id}'s subscription is removed`).not.toContain(id);
}

let w: World;
beforeEach(async () => {
  w = await world();
});

describe('a socket whose credential ended hears nothing more', () => {
  it('a revoked API key: its socket is cut, a socket of another key of the same user still hears', async () => {
    const revoked = await w.keys.create({ scopes: ['task.read'], userId: w.userId });
    const kept = await w.keys.create({ scopes: ['task.read', 'task.write'], userId: w.userId });
    await w.socket('key-revoked', revoked.key);
    await w.socket('key-kept', kept.key);
    await w.jobEvent();
    expect(w.heard('key-revoked')).toHaveLength(1);
    await w.keys.revoke(revoked.record.keyId);
    await afterRevocation(w, ['key-revoked'], ['key-kept']);
  });

  /** A socket of a key revoked before any event, and one of another key of the same user. */
  async function revokedKeySockets(revokedSocket: string, keptSocket: string) {
    const revoked = await w.keys.create({ scopes: ['task.read'], userId: w.userId });
    const kept = await w.keys.create({ scopes: ['task.read'], userId: w.userId });
    await w.socket(revokedSocket, revoked.key);
    await w.socket(keptSocket, kept.key);
    await w.keys.revoke(revoked.record.keyId);
  }

  it('a key revoked before any event reached its socket: not even the first event', async () => {
    await revokedKeySockets('early-revoked', 'early-kept');
    await w.jobEvent();
    expect(w.heard('early-revoked')).toEqual([]);
    expect(w.heard('early-kept')).toHaveLength(1);
    expect(w.closed).toEqual(['early-revoked']);
  });

  async function oauthToken(w: World) {
    const { client } = await w.clients.create({ name: 'Socket app', redirectUris: ['https://app.example/cb'] });
    const grant = await w.tokens.approve(w.userId, client.id, ['task.read']);
    const { accessToken } = await w.tokens.issueImplicit({ userId: w.userId, clientId: client.id, grantId: grant.grantId }, ['task.read']);
    return { client, accessToken };
  }

  /** A socket subscribed with an OAuth token and one with a key of the same user, both hearing; the token's client. */
  async function tokenAndKeySockets(tokenSocket: string, keySocket: string) {
    const { client, accessToken } = await oauthToken(w);
    const kept = await w.keys.create({ scopes: ['task.read'], userId: w.userId });
    await w.socket(tokenSocket, accessToken);
    await w.socket(keySocket, kept.key);
    await w.jobEvent();
    expect(w.heard(tokenSocket)).toHaveLength(1);
    return client;
  }

  it('a revoked OAuth grant (the account page): its token\'s socket is cut, the user\'s key socket still hears', async () => {
    const client = await tokenAndKeySockets('grant-revoked', 'grant-kept');
    expect(await w.tokens.revokeGrant(w.userId, client.id)).toBe(true);
    await afterRevocation(w, ['grant-revoked'], ['grant-kept']);
  });

  it('a revoked OAuth access token (RFC 7009 /oauth/revoke): its socket is cut, another token of the grant still hears', async () => {
    const { client, accessToken } = await oauthToken(w);
    const grant = (await w.tokens.grants(w.userId)).find((g) => g.clientId === client.id)!;
    const other = await w.tokens.issueImplicit({ userId: w.userId, clientId: client.id, grantId: grant.grantId }, ['task.read']);
    await w.socket('token-revoked', accessToken);
    await w.socket('token-kept', other.accessToken);
    await w.jobEvent();
    expect(await w.tokens.revoke(accessToken, client.id, 'access_token')).toBe('revoked');
    await afterRevocation(w, ['token-revoked'], ['token-kept']);
  });

  it('a deleted OAuth client: the sockets of its tokens are cut', async () => {
    const client = await tokenAndKeySockets('client-deleted', 'client-kept');
    await w.clients.delete(client.id);
    await afterRevocation(w, ['client-deleted'], ['client-kept']);
  });

  it('a disabled user: the sockets of their keys and tokens are all cut', async () => {
    const key = await w.keys.create({ scopes: ['task.read'], userId: w.userId });
    const { accessToken } = await oauthToken(w);
    await w.socket('disabled-key', key.key);
    await w.socket('disabled-token', accessToken);
    await w.jobEvent();
    expect(w.heard('disabled-key')).toHaveLength(1);
    await w.accounts.disable(w.userId);
    await afterRevocation(w, ['disabled-key', 'disabled-token'], []);
  });

  it('checks each credential at most once per cache period however many events and subscribers (backend calls per event)', async () => {
    const a = await w.keys.create({ scopes: ['task.read'], userId: w.userId });
    const b = await w.keys.create({ scopes: ['task.read'], userId: w.userId });
    for (const id of ['calls-a1', 'calls-a2', 'calls-a3']) await w.socket(id, a.key);
    await w.socket('calls-b', b.key);
    w.counter.reset();
    const events = 20;
    for (let i = 0; i < events; i++) await w.jobEvent();
    const reads = (w.counter.calls.get ?? 0) + (w.counter.calls.getMany ?? 0);
    // One subscriptions query per event, as before; an API key check is two reads (key, user), once per key.
    expect(w.counter.calls.query).toBe(events);
    expect(reads).toBeLessThanOrEqual(2 * 2);
    expect(w.heard('calls-a3')).toHaveLength(events);
    // Past the cache period each credential is checked again, once.
    w.clock.now += (CACHE_SECONDS + 1) * 1000;
    w.counter.reset();
    for (let i = 0; i < events; i++) await w.jobEvent();
    expect((w.counter.calls.get ?? 0) + (w.counter.calls.getMany ?? 0)).toBeLessThanOrEqual(2 * 2);
    console.info(`socket events: ${events} events to 4 subscribers of 2 keys: ${w.counter.calls.query} queries, ${(w.counter.calls.get ?? 0) + (w.counter.calls.getMany ?? 0)} credential reads`);
  });

  it('a socket of a revoked key that hears no event is told and closed by the next ping', async () => {
    await revokedKeySockets('quiet-revoked', 'quiet-kept');
    await w.ping();
    expect(w.frames.get('quiet-revoked')).toEqual([`42["subscription_error","private-user.${w.userId}.jobs",401]`, '41']);
    expect(w.closed).toEqual(['quiet-revoked']);
    expect(w.frames.get('quiet-kept')).toEqual(['2']);
    expect((await w.connections.subscribersOf(w.userId, false)).map((s) => s.connectionId)).toEqual(['quiet-kept']);
  });

  it('a subscription recorded without its credential (made before this check existed) is cut, not trusted', async () => {
    await w.connections.open('legacy');
    // As the earlier code recorded it: no credential on the subscription.
    const item = { pk: `socket#subs#live#${w.userId}`, sk: `private-user.${w.userId}.jobs|legacy`, channel: `private-user.${w.userId}.jobs`, connectionId: 'legacy', expiresAt: Math.floor(Date.now() / 1000) + 3600 } as Item;
    await backend.store.put(item);
    await w.jobEvent();
    expect(w.heard('legacy')).toEqual([]);
    expect(w.closed).toContain('legacy');
  });
});
