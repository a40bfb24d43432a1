/**
 * socket.io clients of the live events, as the SDK makes them, for e2e tests against a platform's
 * WebSocket API (local/emulator.ts `socketUrl`): each records every event it hears.
 */
import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import type { SocketConnections } from '#lib/file-api/events/connections.js';

export interface Heard {
  event: string;
  args: unknown[];
}

export interface Listener {
  socket: Socket;
  heard: Heard[];
  /** The first event heard (before or after the call) that matches. */
  next: (match: (h: Heard) => boolean) => Promise<Heard>;
}

/** A socket.io client as the SDK makes one (plus `options`), kept in `sockets` for closing after the test. */
export function listen(url: string, sockets: Socket[], options: Partial<ManagerOptions & SocketOptions> = {}): Listener {
  const socket = io(url, { transports: ['websocket'], ...options });
  sockets.push(socket);
  const heard: Heard[] = [];
  const waiting: Array<{ match: (h: Heard) => boolean; resolve: (h: Heard) => void }> = [];
  socket.onAny((event: string, ...args: unknown[]) => {
    const h = { event, args };
    heard.push(h);
    for (const w of [...waiting]) {
      if (w.match(h)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(h);
      }
    }
  });
  const next = (match: (h: Heard) => boolean) =>
    new Promise<Heard>((resolve) => {
      const seen = heard.find(match);
      if (seen) resolve(seen);
      else waiting.push({ match, resolve });
    });
  return { socket, heard, next };
}

export const subscribe = (socket: Socket, channel: string, key: string) => socket.emit('subscribe', { channel, auth: { headers: { Authorization: `Bearer ${key}` } } });

/** A subscription takes effect when it is recorded (the protocol has no acknowledgement). */
export async function recorded(connections: SocketConnections, userId: number, channel: string, count = 1): Promise<void> {
  while ((await connections.subscribersOf(userId, false)).filter((s) => s.channel === channel).length < count) await new Promise((r) => setTimeout(r, 50));
}
