// Minimal typings for the parts of `ssh2` (1.17) this project uses: the client with SFTP, and the
// server with its low-level SFTP events (tests). `@types/ssh2` pins @types/node 18, which would sit
// beside the project's own @types/node.
declare module 'ssh2' {
  import { EventEmitter } from 'node:events';
  import type { Duplex } from 'node:stream';
  import type { AddressInfo } from 'node:net';

  export interface ParsedKey {
    type: string;
    comment: string;
    isPrivateKey(): boolean;
    getPublicSSH(): Buffer;
    verify(data: Buffer, signature: Buffer, algo?: string): boolean | Error;
    equals(key: Buffer | string | ParsedKey): boolean;
  }

  export interface Attributes {
    mode: number;
    uid: number;
    gid: number;
    size: number;
    atime: number;
    mtime: number;
  }

  export interface Stats extends Attributes {
    isFile(): boolean;
    isDirectory(): boolean;
    isSymbolicLink(): boolean;
  }

  export interface FileEntry {
    filename: string;
    longname: string;
    attrs: Stats;
  }

  export interface SftpError extends Error {
    /** An SFTP status code (`utils.sftp.STATUS_CODE`). */
    code?: number | string;
  }

  type Callback<T = void> = (err: SftpError | undefined | null, result: T) => void;

  export interface SFTPWrapper extends EventEmitter {
    open(path: string, flags: string, callback: Callback<Buffer>): void;
    close(handle: Buffer, callback: (err?: SftpError | null) => void): void;
    read(
      handle: Buffer,
      buffer: Buffer,
      offset: number,
      length: number,
      position: number,
      callback: (err: SftpError | undefined | null, bytesRead: number, buffer: Buffer, position: number) => void,
    ): void;
    write(handle: Buffer, buffer: Buffer, offset: number, length: number, position: number, callback: (err?: SftpError | null) => void): void;
    fstat(handle: Buffer, callback: Callback<Stats>): void;
    stat(path: string, callback: Callback<Stats>): void;
    lstat(path: string, callback: Callback<Stats>): void;
    mkdir(path: string, callback: (err?: SftpError | null) => void): void;
    readdir(path: string, callback: Callback<FileEntry[]>): void;
    end(): void;
  }

  export interface ConnectConfig {
    sock?: Duplex;
    username: string;
    password?: string;
    privateKey?: Buffer | string;
    passphrase?: string;
    tryKeyboard?: boolean;
    readyTimeout?: number;
    keepaliveInterval?: number;
    keepaliveCountMax?: number;
    hostVerifier?: (key: Buffer) => boolean;
  }

  export type KeyboardInteractiveCallback = (
    name: string,
    instructions: string,
    lang: string,
    prompts: Array<{ prompt: string; echo: boolean }>,
    finish: (answers: string[]) => void,
  ) => void;

  export interface ClientError extends Error {
    level?: string;
    code?: string | number;
  }

  export class Client extends EventEmitter {
    connect(config: ConnectConfig): this;
    sftp(callback: (err: Error | undefined, sftp: SFTPWrapper) => void): this;
    end(): this;
    destroy(): this;
    on(event: 'ready' | 'close' | 'end', listener: () => void): this;
    on(event: 'error', listener: (err: ClientError) => void): this;
    on(event: 'keyboard-interactive', listener: KeyboardInteractiveCallback): this;
    once(event: 'ready' | 'close' | 'end', listener: () => void): this;
    once(event: 'error', listener: (err: ClientError) => void): this;
  }

  // Server side (tests).

  export interface AuthContext {
    method: 'none' | 'password' | 'publickey' | 'keyboard-interactive' | 'hostbased';
    username: string;
    password?: string;
    key?: { algo: string; data: Buffer };
    signature?: Buffer;
    blob?: Buffer;
    hashAlgo?: string;
    accept(): void;
    reject(methodsLeft?: string[], isPartial?: boolean): void;
  }

  export interface ServerSftp extends EventEmitter {
    handle(reqid: number, handle: Buffer): boolean;
    status(reqid: number, code: number, message?: string): boolean;
    data(reqid: number, data: Buffer | string): boolean;
    name(reqid: number, names: Array<{ filename: string; longname: string; attrs: Partial<Attributes> }>): boolean;
    attrs(reqid: number, attrs: Partial<Attributes>): boolean;
    on(event: string, listener: (reqid: number, ...args: any[]) => void): this;
  }

  export interface Session extends EventEmitter {
    on(event: 'sftp', listener: (accept: () => ServerSftp, reject: () => void) => void): this;
  }

  export interface Connection extends EventEmitter {
    on(event: 'authentication', listener: (ctx: AuthContext) => void): this;
    on(event: 'ready' | 'close' | 'end', listener: () => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'session', listener: (accept: () => Session, reject: () => void) => void): this;
    end(): this;
  }

  export class Server extends EventEmitter {
    constructor(config: { hostKeys: Array<Buffer | string> }, listener?: (client: Connection) => void);
    listen(port: number, host: string, callback?: () => void): this;
    address(): AddressInfo;
    close(callback?: () => void): this;
  }

  export const utils: {
    parseKey(data: Buffer | string, passphrase?: string): ParsedKey | ParsedKey[] | Error;
    generateKeyPairSync(
      type: 'rsa' | 'ecdsa' | 'ed25519',
      opts?: { bits?: number; comment?: string; format?: 'old'; passphrase?: string; cipher?: string; rounds?: number },
    ): { private: string; public: string };
    sftp: {
      OPEN_MODE: Record<'READ' | 'WRITE' | 'APPEND' | 'CREAT' | 'TRUNC' | 'EXCL', number>;
      STATUS_CODE: Record<'OK' | 'EOF' | 'NO_SUCH_FILE' | 'PERMISSION_DENIED' | 'FAILURE' | 'BAD_MESSAGE' | 'NO_CONNECTION' | 'CONNECTION_LOST' | 'OP_UNSUPPORTED', number>;
      flagsToString(flags: number): string | null;
    };
  };
}
