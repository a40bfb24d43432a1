// Minimal typings for the local backends, which ship none.
declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}

declare module 's3rver' {
  interface S3rverOptions {
    port?: number;
    address?: string;
    silent?: boolean;
    directory: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>;
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}

declare module 'archiver' {
  import type { Readable, Transform } from 'node:stream';
  interface EntryData {
    name: string;
    size?: number;
    date?: Date;
    mode?: number;
    /** zip: keep this entry uncompressed. */
    store?: boolean;
  }
  class Archiver extends Transform {
    append(source: Readable | Buffer | string, data: EntryData): this;
    symlink(name: string, target: string, mode?: number): this;
    finalize(): Promise<void>;
    abort(): this;
    pointer(): number;
  }
  export class ZipArchive extends Archiver {
    constructor(options?: { zlib?: { level?: number }; store?: boolean; forceZip64?: boolean });
  }
  export class TarArchive extends Archiver {
    constructor(options?: { gzip?: boolean });
  }
}
