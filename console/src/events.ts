/**
 * Live events over the service's socket.io endpoint (CloudConvert's channels and event names): one
 * connection for the page, subscriptions made with the session's access token, handlers removed on
 * unsubscribe. Where the stage publishes no events the hooks poll instead (see `useLive`).
 */
import { io, type Socket } from 'socket.io-client';
import { accessToken, currentConfig } from './api';

type Handler = (data: unknown) => void;
let socket: Socket | undefined;
const handlers = new Map<string, Set<{ event: string; handler: Handler }>>();

function connect(): Socket | undefined {
  const where = currentConfig().socket;
  if (!where) return undefined;
  if (socket) return socket;
  socket = io(where.url, { path: where.path, addTrailingSlash: where.path === '/socket.io' ? undefined : false, transports: ['websocket'] });
  // Every event arrives as (channel, data): hand it to the channel's handlers of that event.
  socket.onAny((event: string, channel: unknown, data: unknown) => {
    if (typeof channel !== 'string') return;
    for (const h of handlers.get(channel) ?? []) if (h.event === event) h.handler(data);
  });
  // After a reconnection the server has forgotten the subscriptions: make them again.
  socket.io.on('reconnect', () => {
    for (const channel of handlers.keys()) void sendSubscribe(channel);
  });
  return socket;
}

async function sendSubscribe(channel: string): Promise<void> {
  socket?.emit('subscribe', { channel, auth: { headers: { Authorization: `Bearer ${await accessToken()}` } } });
}

/** Whether live events are available on this stage. */
export const liveEvents = () => currentConfig().socket !== null;

/** Listens to `events` of `channel` (e.g. `private-user.1.jobs`, `job.updated`); returns the unsubscribe. */
export function subscribe(channel: string, events: string[], handler: Handler): () => void {
  const s = connect();
  if (!s) return () => {};
  let set = handlers.get(channel);
  const fresh = !set;
  if (!set) handlers.set(channel, (set = new Set()));
  const entries = events.map((event) => ({ event, handler }));
  entries.forEach((e) => set.add(e));
  if (fresh) void sendSubscribe(channel);
  return () => {
    entries.forEach((e) => set.delete(e));
    if (set.size === 0) {
      handlers.delete(channel);
      s.emit('unsubscribe', { channel });
    }
  };
}
