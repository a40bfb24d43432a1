/** Persistence of the local SQS server: a JSON snapshot, written after changes (debounced), atomically (temp file + rename). */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PERSIST_DEBOUNCE_MS } from './limits.js';
import type { StoredMessage } from './messages.js';
import type { Queue } from './queue-model.js';

export interface Snapshot {
  version: 1;
  queues: Array<Omit<Queue, 'messages' | 'waiters' | 'wakeTimer'> & { messages: StoredMessage[] }>;
}

export class SnapshotWriter {
  #timer?: NodeJS.Timeout;
  #writing?: Promise<void>;
  #dirty = false;

  constructor(
    private readonly file: string,
    private readonly snapshot: () => Snapshot,
  ) {}

  /** Something changed: write soon. */
  changed(): void {
    this.#dirty = true;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush().catch((err: unknown) => console.error(`[sqs] could not write ${this.file}:`, err));
    }, PERSIST_DEBOUNCE_MS);
  }

  /** Writes now if anything changed since the last write; one write at a time. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#writing) await this.#writing;
    if (!this.#dirty) return;
    this.#dirty = false;
    this.#writing = this.#write().finally(() => (this.#writing = undefined));
    await this.#writing;
  }

  async #write(): Promise<void> {
    // Serialise synchronously, so the snapshot is one consistent moment even if the file write is slow.
    const text = JSON.stringify(this.snapshot());
    const temp = `${this.file}.${process.pid}.tmp`;
    await mkdir(dirname(this.file), { recursive: true });
    await writeFile(temp, text, 'utf8');
    await rename(temp, this.file);
  }
}

export async function loadSnapshot(file: string): Promise<Snapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const snapshot = JSON.parse(text) as Snapshot;
  if (snapshot.version !== 1 || !Array.isArray(snapshot.queues)) throw new Error(`${file} is not an SQS snapshot this server understands`);
  return snapshot;
}

/** The queues as the snapshot holds them (without their waiting polls and timers). */
export function takeSnapshot(queues: Map<string, Queue>): Snapshot {
  return {
    version: 1,
    queues: [...queues.values()].map(({ messages, waiters: _w, wakeTimer: _t, ...rest }) => ({ ...rest, messages: [...messages.values()] })),
  };
}

/** Loads the saved queues into `queues`. */
export function restoreSnapshot(snapshot: Snapshot | undefined, queues: Map<string, Queue>): void {
  const t = Date.now();
  for (const saved of snapshot?.queues ?? []) {
    const messages = new Map<string, StoredMessage>();
    for (const m of saved.messages) {
      // Whoever held an in-flight message went away with the previous process: make it receivable again
      // (its receive count stays, so a redrive policy still applies). Delayed messages keep their delay.
      if (m.receiptHandle && m.visibleAt > t) m.visibleAt = t;
      delete m.receiptHandle;
      messages.set(m.messageId, m);
    }
    queues.set(saved.name, { ...saved, messages, waiters: new Set() });
  }
}
