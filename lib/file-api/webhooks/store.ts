/** Webhook endpoints and the users' dynamic-webhook signing secrets in the state store. */
import { randomBytes, randomUUID } from 'node:crypto';
import { ConditionFailedError, getOrCreate, type Page, type StateStore } from '../../adapters/state/port.js';
import { webhookRemoved, type Listeners } from '../records/listeners.js';
import {
  accountSecretKey,
  userWebhooksIndex,
  webhookKey,
  type AccountSecretRecord,
  type WebhookEvent,
  type WebhookRecord,
} from './model.js';

export const newSigningSecret = () => randomBytes(24).toString('base64url');

export class WebhookStore {
  /**
   * `listeners`: the per-user count events read before looking endpoints up (lib/file-api/records/listeners.ts),
   * counted up by `create`; a store without it (reading, delivering, deleting: a deletion counts down
   * without it) must not create endpoints that events should reach.
   */
  constructor(
    private readonly state: StateStore,
    private readonly listeners?: Pick<Listeners, 'webhookAdded'>,
  ) {}

  async create(args: { userId: number; url: string; events: WebhookEvent[]; keyIds: string[]; sandbox?: boolean }, now = new Date()): Promise<WebhookRecord> {
    const id = randomUUID();
    const createdAt = now.toISOString();
    const record: WebhookRecord = {
      ...webhookKey(id),
      gsi1pk: userWebhooksIndex(args.userId, args.sandbox),
      gsi1sk: `${createdAt}#${id}`,
      id,
      userId: args.userId,
      url: args.url,
      events: [...new Set(args.events)],
      keyIds: [...new Set(args.keyIds)],
      signingSecret: newSigningSecret(),
      disabled: false,
      failing: false,
      ...(args.sandbox ? { sandbox: true } : {}),
      createdAt,
      updatedAt: createdAt,
    };
    // Counted before it exists: an event written from now on looks it up.
    await this.listeners?.webhookAdded(args.userId, Boolean(args.sandbox));
    await this.state.put(record, { condition: { exists: false } });
    return record;
  }

  get(id: string): Promise<WebhookRecord | undefined> {
    return this.state.get<WebhookRecord>(webhookKey(id));
  }

  /** One page of the user's live endpoints (with `sandbox`, the sandbox's), newest first. */
  list(userId: number, opts: { limit: number; cursor?: string }, sandbox = false): Promise<Page<WebhookRecord>> {
    return this.state.query<WebhookRecord>(userWebhooksIndex(userId, sandbox), { index: 'gsi1', descending: true, ...opts });
  }

  /** Every live endpoint of the user, or every sandbox one (a user has a handful). */
  async all(userId: number, sandbox = false): Promise<WebhookRecord[]> {
    const out: WebhookRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.list(userId, { limit: 100, cursor }, sandbox);
      out.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  async delete(id: string): Promise<void> {
    const deleted = await this.state.delete<WebhookRecord>(webhookKey(id));
    if (deleted) await webhookRemoved(this.state, deleted.userId, deleted.sandbox === true);
  }

  /** Records a delivery outcome; a deleted endpoint is left alone. */
  async mark(id: string, set: Partial<Pick<WebhookRecord, 'disabled' | 'failing'>>): Promise<void> {
    try {
      await this.state.update(webhookKey(id), { set: { ...set, updatedAt: new Date().toISOString() } }, { condition: { exists: true } });
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
    }
  }

  /** The user's dynamic-webhook signing secret, made on first use (concurrent first uses agree). */
  async accountSecret(userId: number): Promise<string> {
    const record = await getOrCreate<AccountSecretRecord>(this.state, accountSecretKey(userId), () => ({
      ...accountSecretKey(userId),
      userId,
      signingSecret: newSigningSecret(),
      createdAt: new Date().toISOString(),
    }));
    return record.signingSecret;
  }
}
