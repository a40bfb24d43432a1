/**
 * The socket.io wire format the official SDK's client speaks (Engine.IO 4 packets carrying Socket.IO 5
 * packets, text frames only), reduced to what a server of live job and task events needs. Pure: no
 * state, no network.
 *
 * Engine.IO: `0` open (server → client, JSON settings), `1` close, `2` ping, `3` pong, `4` message,
 * `6` noop. A message carries a Socket.IO packet: `0` connect, `1` disconnect, `2` event, `3` ack,
 * `4` connect error; then an optional `/namespace,`, an optional ack id (digits) and the JSON data.
 * So `40` connects to the default namespace and `42["subscribe",{…}]` emits an event.
 */

/** Engine.IO's open packet settings (milliseconds and bytes). */
export interface OpenSettings {
  pingInterval: number;
  pingTimeout: number;
  maxPayload: number;
}

/** What a frame from the client asks for. */
export type ClientFrame =
  | { kind: 'connect'; namespace: string }
  | { kind: 'pong' }
  /** An Engine.IO 3 style ping from the client: answered with a pong. */
  | { kind: 'ping' }
  | { kind: 'event'; namespace: string; name: string; args: unknown[] }
  /** Anything else (close, noop, disconnect of a namespace, acks, binary packets, garbage): nothing to do. */
  | { kind: 'ignored' };

export const PING_FRAME = '2';
export const PONG_FRAME = '3';
/**
 * The server's disconnect of the default namespace: the client's socket emits `disconnect` ("io
 * server disconnect"), does not reconnect, and closes the connection when it was its only namespace.
 */
export const DISCONNECT_FRAME = '41';

/**
 * The largest frame the server takes and announces (`maxPayload`): API Gateway's limit of a WebSocket
 * message, 128 KB. The client refuses to send more (and the gateway would close the connection).
 */
export const MAX_FRAME_BYTES = 128 * 1024;

export function openFrame(sid: string, settings: OpenSettings): string {
  return `0${JSON.stringify({ sid, upgrades: [], pingInterval: settings.pingInterval, pingTimeout: settings.pingTimeout, maxPayload: settings.maxPayload })}`;
}

/** The answer to a connect to the default namespace. */
export function connectedFrame(sid: string): string {
  return `40${JSON.stringify({ sid })}`;
}

/** The answer to a connect to any other namespace: this server has only `/`. */
export function connectErrorFrame(namespace: string): string {
  return `44${namespace},${JSON.stringify({ message: 'Invalid namespace' })}`;
}

/** An event on the default namespace: `42["<name>",arg,…]`. */
export function eventFrame(name: string, ...args: unknown[]): string {
  return `42${JSON.stringify([name, ...args])}`;
}

export function parseClientFrame(frame: string): ClientFrame {
  const engineType = frame[0];
  if (engineType === '3') return { kind: 'pong' };
  if (engineType === '2') return { kind: 'ping' };
  if (engineType !== '4') return { kind: 'ignored' };
  const packetType = frame[1];
  let rest = frame.slice(2);
  let namespace = '/';
  if (rest.startsWith('/')) {
    const comma = rest.indexOf(',');
    namespace = comma < 0 ? rest : rest.slice(0, comma);
    rest = comma < 0 ? '' : rest.slice(comma + 1);
  }
  if (packetType === '0') return { kind: 'connect', namespace };
  if (packetType !== '2') return { kind: 'ignored' };
  // An ack id before the data is allowed; this server does not acknowledge.
  const data = rest.replace(/^\d+/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { kind: 'ignored' };
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'string') return { kind: 'ignored' };
  return { kind: 'event', namespace, name: parsed[0], args: parsed.slice(1) };
}
