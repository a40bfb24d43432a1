/**
 * Messages of the GraphQL tutorial ("Mutations and Input Types"), kept in the state store so they
 * survive restarts and every function instance sees the same ones. One item per message:
 * `{ pk: 'message#<id>', sk: 'message', content?, author?, createdAt, updatedAt }` (a null field is
 * stored as an absent attribute).
 */
import { randomBytes } from 'node:crypto';
import { invalid, notFound } from '../../kernel/errors.js';
import { ConditionFailedError, type Item, type StateStore } from '../../adapters/state/port.js';

export interface Message {
  id: string;
  content: string | null;
  author: string | null;
}

export interface MessageInput {
  content?: string | null;
  author?: string | null;
}

export const MESSAGE_LIMITS = { content: 10_000, author: 200 } as const;

/** 10 random bytes, hex: 20 lower-case hex characters, as in the tutorial. */
const newId = (): string => randomBytes(10).toString('hex');
const ID_PATTERN = /^[0-9a-f]{20}$/;

type MessageItem = Item & { content?: string; author?: string; createdAt: string; updatedAt: string };

const keyOf = (id: string) => ({ pk: `message#${id}`, sk: 'message' });
const missing = (id: string) => notFound(`no message exists with id ${id}`);

function validate(input: MessageInput): { content: string | null; author: string | null } {
  const fields: Record<string, string[]> = {};
  for (const field of ['content', 'author'] as const) {
    const value = input[field];
    if (value != null && value.length > MESSAGE_LIMITS[field]) {
      fields[field] = [`at most ${MESSAGE_LIMITS[field]} characters, got ${value.length}`];
    }
  }
  const problems = Object.entries(fields);
  if (problems.length) {
    throw invalid(problems.map(([f, [m]]) => `input.${f}: ${m}`).join('; '), fields);
  }
  return { content: input.content ?? null, author: input.author ?? null };
}

const toMessage = (id: string, item: MessageItem): Message => ({
  id,
  content: item.content ?? null,
  author: item.author ?? null,
});

export class Messages {
  readonly #store: () => StateStore;

  /** `store` may be a function, called on first use, so building this reads no configuration. */
  constructor(
    store: StateStore | (() => StateStore),
    private readonly clock: () => Date = () => new Date(),
  ) {
    let resolved: StateStore | undefined;
    this.#store = typeof store === 'function' ? () => (resolved ??= store()) : () => store;
  }

  private get store(): StateStore {
    return this.#store();
  }

  /** Stores a new message; a missing input counts as an empty one. */
  async create(input: MessageInput | null | undefined): Promise<Message> {
    const fields = validate(input ?? {});
    const id = newId();
    const now = this.clock().toISOString();
    await this.store.put(
      { ...keyOf(id), ...fields, createdAt: now, updatedAt: now },
      // 80 random bits make a clash practically impossible; the condition makes it harmless anyway.
      { condition: { exists: false } },
    );
    return { id, ...fields };
  }

  /** Throws NOT_FOUND (`no message exists with id <id>`) for an unknown id. */
  async get(id: string): Promise<Message> {
    if (!ID_PATTERN.test(id)) throw missing(id);
    const item = await this.store.get<MessageItem>(keyOf(id));
    if (!item) throw missing(id);
    return toMessage(id, item);
  }

  /**
   * Replaces content and author wholesale (an omitted field becomes null, nothing is merged).
   * Throws NOT_FOUND for an unknown id; the existence check and the write are one conditional update.
   */
  async replace(id: string, input: MessageInput | null | undefined): Promise<Message> {
    const fields = validate(input ?? {});
    if (!ID_PATTERN.test(id)) throw missing(id);
    const set: Record<string, unknown> = { updatedAt: this.clock().toISOString() };
    const remove: string[] = [];
    for (const [field, value] of Object.entries(fields)) {
      if (value === null) remove.push(field);
      else set[field] = value;
    }
    try {
      const item = await this.store.update<MessageItem>(keyOf(id), { set, remove }, { condition: { exists: true } });
      return toMessage(id, item);
    } catch (err) {
      if (err instanceof ConditionFailedError) throw missing(id);
      throw err;
    }
  }
}
