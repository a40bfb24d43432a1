/**
 * User storage on an SFTP server (`ssh2`, pure JavaScript), for `import/sftp` and `export/sftp`.
 *
 * - The connection goes through the address guard: the host is checked as written, resolved by the
 *   guarded lookup (every address it resolves to must pass, and the socket dials exactly those), and
 *   the connected peer is checked again; SSH then runs over that socket. No DNS rebinding window.
 * - Authentication by password (also offered as keyboard-interactive, which many servers use for
 *   passwords) or by private key (PEM or OpenSSH format, optionally encrypted with `passphrase`).
 * - Host key: with `host_key` (a `SHA256:…` fingerprint as `ssh-keygen -l` prints it, an `MD5:…`
 *   fingerprint, or the public key line from `known_hosts`/`.pub`), any other key is refused; without
 *   it, any key is accepted and its SHA256 fingerprint reported through `onHostKey` (to log).
 * - Transfers stream both ways with several SFTP requests in flight (bounded memory: at most
 *   `READ_AHEAD` × `CHUNK` bytes per transfer), and an upload is checked by the size the server then
 *   reports. Parent folders of an uploaded file are created.
 * - Object names are paths on the server, relative to the login folder unless they start with `/`.
 *   A prefix lists the files below it, sub-folders included (up to `MAX_DEPTH` levels).
 */
import { createHash } from 'node:crypto';
import { connect as netConnect, type Socket } from 'node:net';
import { posix } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import ssh2, { type ClientError, type SFTPWrapper, type SftpError, type Stats } from 'ssh2';
import { assertPublicAddress, parseHost, type AddressPolicy } from '../net/address-policy.js';
import { createGuardedLookup } from '../net/guarded-fetch.js';
import { abortError, describeCommonError, StorageFailure } from './failure.js';
import type { StorageErrorInfo, StoredObject, UserStorage } from './port.js';
import { trimEnd } from '../../kernel/text.js';

/** The task arguments of `import/sftp` and `export/sftp` that say where and who. */
export interface SftpArgs {
  host: string;
  /** Default 22. */
  port?: number | string;
  username: string;
  password?: string;
  /** PEM or OpenSSH private key; `\n` escapes (as pasted into JSON) are accepted. */
  private_key?: string;
  /** Passphrase of an encrypted `private_key` (ours; not in the real API). */
  passphrase?: string;
  /** Expected host key or fingerprint (ours; not in the real API). */
  host_key?: string;
}

export interface SftpConnection {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  passphrase?: string;
  hostKey?: string;
}

export interface SftpOpenOptions {
  policy: AddressPolicy;
  /** Aborts the connection attempt (transfers take their own signal). */
  signal?: AbortSignal;
  /** TCP connect, SSH handshake and authentication together. Default 30 s. */
  connectTimeoutMs?: number;
  /** SSH keepalive period; the connection is dropped after 3 unanswered ones. Default 15 s. */
  keepaliveMs?: number;
  /** Called with the server's host key fingerprint (`SHA256:…`) once it is accepted. */
  onHostKey?: (fingerprint: string) => void;
}

export const SFTP_DEFAULT_PORT = 22;
/** Bytes per SFTP read or write request (below every server's packet limit). */
export const CHUNK = 32 * 1024;
/** SFTP requests in flight per transfer. */
export const READ_AHEAD = 16;
/** Folder levels a prefix listing descends. */
export const MAX_DEPTH = 16;

// ssh2 is CommonJS whose exports Node cannot name statically: take them from the default export.
const { Client, utils } = ssh2;
const { STATUS_CODE } = utils.sftp;
const STATUS_NAMES = new Map(Object.entries(STATUS_CODE).map(([name, code]) => [code, name]));

/** The connection a task's arguments describe, or a `StorageFailure` naming the argument at fault. */
export function sftpConnection(args: SftpArgs): SftpConnection {
  const invalid = (message: string) => new StorageFailure('INVALID_ARGUMENT', message, { transient: false });
  if (typeof args.host !== 'string' || args.host.trim() === '') throw invalid('host is required.');
  if (typeof args.username !== 'string' || args.username === '') throw invalid('username is required.');
  const port = args.port === undefined || args.port === '' ? SFTP_DEFAULT_PORT : Number(args.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw invalid('port must be a whole number from 1 to 65535.');
  if (!args.password && !args.private_key) throw invalid('password or private_key is required.');
  return {
    host: args.host.trim(),
    port,
    username: args.username,
    password: args.password || undefined,
    privateKey: args.private_key ? args.private_key.replace(/\\n/g, '\n') : undefined,
    passphrase: args.passphrase || undefined,
    hostKey: args.host_key?.trim() || undefined,
  };
}

/** `SHA256:<base64, unpadded>` of a host key blob, as `ssh-keygen -l` prints it. */
export function fingerprintOf(key: Buffer): string {
  return `SHA256:${trimEnd(createHash('sha256').update(key).digest('base64'), '=')}`;
}

/** Whether `key` (the server's host key blob) is the one `expected` names (fingerprint or public key line). */
export function hostKeyMatches(expected: string, key: Buffer): boolean {
  const text = expected.trim();
  if (/^SHA256:/i.test(text)) return trimEnd(text.slice(7), '=') === fingerprintOf(key).slice(7);
  const md5 = text.replace(/^MD5:/i, '');
  if (/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/i.test(md5)) {
    return md5.toLowerCase() === createHash('md5').update(key).digest('hex').replace(/(..)(?!$)/g, '$1:');
  }
  // `[host] type base64 [comment]` (known_hosts) or `type base64 [comment]` (.pub): the base64 blob.
  const blob = text.split(/\s+/).find((word) => word.length > 20 && /^[A-Za-z0-9+/]+={0,2}$/.test(word));
  return blob !== undefined && Buffer.from(blob, 'base64').equals(key);
}

const promisify =
  <T>(fn: (cb: (err: SftpError | undefined | null, value: T) => void) => void) =>
  () =>
    new Promise<T>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));

/** Dials `host:port` under the address policy; resolves with the connected, checked socket. */
async function dial(host: string, port: number, policy: AddressPolicy, signal: AbortSignal): Promise<Socket> {
  const parsed = parseHost(host);
  assertPublicAddress(parsed.kind === 'ip' ? parsed.address : host, policy, { host, port });
  const target = parsed.kind === 'ip' ? parsed.address : host;
  const socket = netConnect({ host: target, port, lookup: createGuardedLookup(policy, { port }) });
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('connect', () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
      socket.once('error', (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      });
    });
    assertPublicAddress(socket.remoteAddress ?? '', policy, { host, port });
    // SFTP requests are small packets answered one by one: no Nagle delay on them.
    socket.setNoDelay(true);
  } catch (err) {
    socket.destroy();
    throw err;
  }
  return socket;
}

export class SftpStorage implements UserStorage {
  readonly service = 'SFTP';
  private closed = false;

  private constructor(
    private readonly client: ssh2.Client,
    private readonly sftp: SFTPWrapper,
    private readonly where: string,
  ) {
    // Later connection errors reach the transfer in progress through its requests; keep them from
    // becoming unhandled 'error' events.
    client.on('error', () => undefined);
    client.on('close', () => (this.closed = true));
  }

  /** Connects, checks the host key, authenticates and opens the SFTP channel. */
  static async open(conn: SftpConnection, opts: SftpOpenOptions): Promise<SftpStorage> {
    const timeoutMs = opts.connectTimeoutMs ?? 30_000;
    const where = `${conn.host}:${conn.port}`;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
    const failed = (err: unknown) =>
      deadline.aborted && !opts.signal?.aborted
        ? new StorageFailure('TIMEOUT', `Could not connect to the SFTP server ${where} within ${timeoutMs / 1000} s.`, { transient: true, cause: err })
        : err;

    if (conn.privateKey) {
      const parsed = utils.parseKey(conn.privateKey, conn.passphrase);
      const key = Array.isArray(parsed) ? parsed[0] : parsed;
      if (!key || key instanceof Error || !key.isPrivateKey()) {
        const encrypted = key instanceof Error && /encrypted|passphrase/i.test(key.message);
        throw new StorageFailure(
          'INVALID_PRIVATE_KEY',
          encrypted
            ? 'private_key is encrypted: give its passphrase, or the passphrase given is wrong.'
            : 'private_key is not a private key in PEM or OpenSSH format.',
          { transient: false },
        );
      }
    }

    let socket: Socket;
    try {
      socket = await dial(conn.host, conn.port, opts.policy, signal);
    } catch (err) {
      throw failed(err);
    }

    const client = new Client();
    let fingerprint = '';
    let keyRefused = false;
    try {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          client.end();
          socket.destroy();
          reject(abortError(signal));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const settle = (err?: unknown) => {
          signal.removeEventListener('abort', onAbort);
          if (err) reject(err);
          else resolve();
        };
        client.once('ready', () => settle());
        client.on('error', (err: ClientError) => {
          client.end();
          socket.destroy();
          settle(sshFailure(err, conn, where, keyRefused));
        });
        client.once('close', () => settle(new StorageFailure('CONNECTION_CLOSED', `The SFTP server ${where} closed the connection during the handshake.`, { transient: true })));
        client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, finish) => finish(prompts.map(() => conn.password ?? '')));
        client.connect({
          sock: socket,
          username: conn.username,
          password: conn.password,
          // ssh2 takes the key as text (a parsed key object would be ignored).
          privateKey: conn.privateKey,
          passphrase: conn.passphrase,
          tryKeyboard: conn.password !== undefined,
          readyTimeout: timeoutMs,
          keepaliveInterval: opts.keepaliveMs ?? 15_000,
          keepaliveCountMax: 3,
          hostVerifier: (key: Buffer) => {
            fingerprint = fingerprintOf(key);
            keyRefused = conn.hostKey !== undefined && !hostKeyMatches(conn.hostKey, key);
            return !keyRefused;
          },
        });
      });
      opts.onHostKey?.(fingerprint);
      const sftp = await promisify<SFTPWrapper>((cb) => client.sftp((err, s) => cb(err as SftpError | undefined, s)))();
      return new SftpStorage(client, sftp, where);
    } catch (err) {
      client.end();
      socket.destroy();
      throw failed(err);
    }
  }

  private stat(path: string) {
    return promisify<Stats>((cb) => this.sftp.stat(path, cb))();
  }

  private openFile(path: string, flags: string) {
    return promisify<Buffer>((cb) => this.sftp.open(path, flags, cb))();
  }

  /** `mkdir -p` of a folder (a folder that exists, or appears meanwhile, is fine). */
  private async makeFolders(dir: string): Promise<void> {
    if (dir === '.' || dir === '/' || dir === '') return;
    try {
      if ((await this.stat(dir)).isDirectory()) return;
    } catch (err) {
      if ((err as SftpError).code !== STATUS_CODE.NO_SUCH_FILE) throw err;
    }
    await this.makeFolders(posix.dirname(dir));
    await new Promise<void>((resolve, reject) =>
      this.sftp.mkdir(dir, (err) => {
        if (!err) return resolve();
        this.sftp.stat(dir, (statErr, stats) => (!statErr && stats.isDirectory() ? resolve() : reject(err)));
      }),
    );
  }

  async put(upload: { name: string; body: Readable; size: number }, signal: AbortSignal): Promise<void> {
    this.assertOpen();
    await this.makeFolders(posix.dirname(upload.name));
    const handle = await this.openFile(upload.name, 'w');
    await pipeline(upload.body, new SftpWriter(this.sftp, handle), { signal });
    const stored = await this.stat(upload.name);
    if (stored.size !== upload.size) {
      throw new StorageFailure('SIZE_MISMATCH', `The SFTP server ${this.where} holds ${stored.size} bytes of ${upload.name} after ${upload.size} were sent.`, {
        transient: true,
      });
    }
  }

  async get(name: string, signal: AbortSignal): Promise<{ body: Readable; size: number }> {
    this.assertOpen();
    signal.throwIfAborted();
    const stats = await this.stat(name);
    if (!stats.isFile()) {
      throw new StorageFailure('NOT_A_FILE', `${name} on the SFTP server ${this.where} is not a file.`, { transient: false });
    }
    const handle = await this.openFile(name, 'r');
    const body = new SftpReader(this.sftp, handle, stats.size);
    const onAbort = () => body.destroy(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    body.once('close', () => signal.removeEventListener('abort', onAbort));
    return { body, size: stats.size };
  }

  async *list(prefix: string, signal: AbortSignal): AsyncIterable<StoredObject> {
    this.assertOpen();
    const start = prefix === '' ? '.' : prefix.endsWith('/') ? trimEnd(prefix, '/') || '/' : posix.dirname(prefix);
    yield* this.walk(start, prefix, 0, signal);
  }

  private async *walk(dir: string, prefix: string, depth: number, signal: AbortSignal): AsyncIterable<StoredObject> {
    signal.throwIfAborted();
    const entries = await promisify<Array<{ filename: string; attrs: Stats }>>((cb) => this.sftp.readdir(dir, cb))();
    const base = dir === '.' ? '' : dir.endsWith('/') ? dir : `${dir}/`;
    entries.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
    for (const entry of entries) {
      if (entry.filename === '.' || entry.filename === '..') continue;
      const path = base + entry.filename;
      let attrs = entry.attrs;
      if (attrs.isSymbolicLink()) {
        // A link to a file is imported as that file; links to folders are not followed (no cycles).
        try {
          attrs = await this.stat(path);
        } catch {
          continue;
        }
        if (!attrs.isFile()) continue;
      }
      if (attrs.isFile()) {
        if (path.startsWith(prefix)) yield { name: path, size: attrs.size };
      } else if (attrs.isDirectory() && depth < MAX_DEPTH && (`${path}/`.startsWith(prefix) || prefix.startsWith(`${path}/`))) {
        yield* this.walk(path, prefix, depth + 1, signal);
      }
    }
  }

  describe(err: unknown): StorageErrorInfo {
    return describeSftpError(err);
  }

  close(): void {
    this.closed = true;
    this.client.end();
  }

  private assertOpen(): void {
    if (this.closed) throw new StorageFailure('CONNECTION_CLOSED', `The connection to the SFTP server ${this.where} is closed.`, { transient: true });
  }
}

/** A connection-phase error of ssh2 as a `StorageFailure` that says what to fix. */
function sshFailure(err: ClientError, conn: SftpConnection, where: string, keyRefused: boolean): unknown {
  if (keyRefused) {
    return new StorageFailure('HOST_KEY_MISMATCH', `The SFTP server ${where} presented a host key that does not match host_key.`, { transient: false, cause: err });
  }
  if (err.level === 'client-authentication') {
    const how = conn.privateKey ? (conn.password ? 'password or private_key' : 'private_key') : 'password';
    return new StorageFailure('AUTHENTICATION_FAILED', `The SFTP server ${where} refused the ${how} of user "${conn.username}".`, { transient: false, cause: err });
  }
  if (err.level === 'client-timeout') {
    return new StorageFailure('TIMEOUT', `The SFTP server ${where} did not complete the SSH handshake in time.`, { transient: true, cause: err });
  }
  if (err.level === 'handshake' || err.level === 'protocol') {
    return new StorageFailure('HANDSHAKE_FAILED', `SSH handshake with ${where} failed: ${err.message}.`, { transient: false, cause: err });
  }
  return err;
}

/** What an SFTP adapter error says: SFTP status codes by name, network trouble as transient. */
export function describeSftpError(err: unknown): StorageErrorInfo {
  const common = describeCommonError(err);
  if (common) return common;
  const e = err as { code?: unknown; message?: string; level?: string } | undefined;
  if (typeof e?.code === 'number' && STATUS_NAMES.has(e.code)) {
    const code = STATUS_NAMES.get(e.code)!;
    const transient = code === 'NO_CONNECTION' || code === 'CONNECTION_LOST';
    return { code, message: e.message || code, transient };
  }
  if (e?.message === 'No response from server' || e?.level === 'client-socket' || e?.level === 'client-timeout') {
    return { code: 'CONNECTION_LOST', message: 'The connection to the SFTP server was lost.', transient: true };
  }
  return { code: typeof e?.code === 'string' ? e.code : undefined, message: e?.message || 'The SFTP request failed.', transient: false };
}

/**
 * A file on the server as a stream: up to `READ_AHEAD` reads of `CHUNK` bytes in flight, passed on in
 * order. Reads stop at the size the server reported when the file was opened.
 */
class SftpReader extends Readable {
  private next = 0;
  private readonly pending: Array<{ position: number; length: number; result: Promise<Buffer> }> = [];
  private waiting = false;
  private handleClosed = false;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly handle: Buffer,
    private readonly size: number,
  ) {
    super({ highWaterMark: CHUNK * 4 });
  }

  private request(position: number, length: number) {
    const result = new Promise<Buffer>((resolve, reject) =>
      this.sftp.read(this.handle, Buffer.allocUnsafe(length), 0, length, position, (err, bytes, buffer) =>
        err ? reject(err) : resolve(buffer.subarray(0, bytes)),
      ),
    );
    result.catch(() => undefined); // observed when its turn comes
    return { position, length, result };
  }

  override _read(): void {
    if (this.waiting || this.handleClosed) return;
    while (this.pending.length < READ_AHEAD && this.next < this.size) {
      const length = Math.min(CHUNK, this.size - this.next);
      this.pending.push(this.request(this.next, length));
      this.next += length;
    }
    const head = this.pending[0];
    if (!head) {
      this.handleClosed = true;
      this.sftp.close(this.handle, (err) => (err ? this.destroy(err) : this.push(null)));
      return;
    }
    this.waiting = true;
    head.result.then(
      (data) => {
        this.waiting = false;
        if (this.destroyed) return;
        this.pending.shift();
        if (data.length === 0) {
          this.destroy(new StorageFailure('FILE_CHANGED', 'The file became shorter while it was read.', { transient: true }));
          return;
        }
        // A short read: ask for the rest before anything after it.
        if (data.length < head.length) this.pending.unshift(this.request(head.position + data.length, head.length - data.length));
        if (this.push(data)) this._read();
      },
      (err: unknown) => {
        this.waiting = false;
        this.destroy(err as Error);
      },
    );
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (this.handleClosed) return callback(err);
    this.handleClosed = true;
    this.sftp.close(this.handle, () => callback(err));
  }
}

/** Writes a stream to an open file with up to `READ_AHEAD` write requests in flight, then closes it. */
class SftpWriter extends Writable {
  private position = 0;
  private inFlight = 0;
  private failure?: Error;
  private wake?: () => void;
  private handleClosed = false;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly handle: Buffer,
  ) {
    super({ highWaterMark: CHUNK * 4 });
  }

  /** Resolves once fewer than `limit` writes are in flight (or one failed). */
  private below(limit: number): Promise<void> {
    if (this.inFlight < limit || this.failure) return Promise.resolve();
    return new Promise((resolve) => (this.wake = () => (this.inFlight < limit || this.failure ? resolve() : undefined)));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    void this.send(chunk).then(() => callback(this.failure), callback);
  }

  /** One write request per `CHUNK` bytes (ssh2 would send the pieces of a longer one one after another). */
  private async send(chunk: Buffer): Promise<void> {
    for (let at = 0; at < chunk.length && !this.failure; at += CHUNK) {
      await this.below(READ_AHEAD);
      if (this.failure) return;
      const length = Math.min(CHUNK, chunk.length - at);
      const position = this.position;
      this.position += length;
      this.inFlight++;
      this.sftp.write(this.handle, chunk, at, length, position, (err) => {
        this.inFlight--;
        if (err) this.failure ??= err;
        this.wake?.();
      });
    }
  }

  override _final(callback: (error?: Error | null) => void): void {
    void this.below(1).then(() => {
      if (this.failure) return callback(this.failure);
      this.handleClosed = true;
      this.sftp.close(this.handle, (err) => callback(err));
    });
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (this.handleClosed) return callback(err);
    this.handleClosed = true;
    this.sftp.close(this.handle, () => callback(err));
  }
}
