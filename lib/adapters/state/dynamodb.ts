/** The state port on one DynamoDB table (also used locally against dynalite). */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  ConditionFailedError,
  isExpired,
  type Condition,
  type Item,
  type ItemKey,
  type Page,
  type QueryOptions,
  type StateStore,
  type Update,
} from './port.js';

/** Builds expression strings with placeholder names and values. */
class Expression {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  #n = 0;

  name(attribute: string): string {
    const placeholder = `#n${this.#n++}`;
    this.names[placeholder] = attribute;
    return placeholder;
  }

  value(v: unknown): string {
    const placeholder = `:v${this.#n++}`;
    this.values[placeholder] = v;
    return placeholder;
  }

  condition(c: Condition | undefined): string | undefined {
    if (!c) return undefined;
    const parts: string[] = [];
    if (c.exists === true) parts.push(`attribute_exists(${this.name('pk')})`);
    if (c.exists === false) parts.push(`attribute_not_exists(${this.name('pk')})`);
    for (const [attr, v] of Object.entries(c.equals ?? {})) {
      parts.push(v === null ? `attribute_not_exists(${this.name(attr)})` : `${this.name(attr)} = ${this.value(v)}`);
    }
    for (const [attr, vs] of Object.entries(c.oneOf ?? {})) {
      parts.push(`${this.name(attr)} IN (${vs.map((v) => this.value(v)).join(', ')})`);
    }
    for (const [attr, n] of Object.entries(c.below ?? {})) parts.push(`${this.name(attr)} < ${this.value(n)}`);
    for (const [attr, n] of Object.entries(c.absentOrBelow ?? {})) {
      const name = this.name(attr);
      parts.push(`(attribute_not_exists(${name}) OR ${name} < ${this.value(n)})`);
    }
    for (const [attr, n] of Object.entries(c.atLeast ?? {})) parts.push(`${this.name(attr)} >= ${this.value(n)}`);
    for (const [attr, member] of Object.entries(c.holds ?? {})) parts.push(`contains(${this.name(attr)}, ${this.value(member)})`);
    // contains() of an absent attribute is false, so its negation holds.
    for (const [attr, member] of Object.entries(c.lacks ?? {})) parts.push(`NOT contains(${this.name(attr)}, ${this.value(member)})`);
    if (c.anyOf?.length) {
      const alternatives = c.anyOf.map((a) => this.condition(a)).filter(Boolean);
      if (alternatives.length) parts.push(`(${alternatives.map((a) => `(${a})`).join(' OR ')})`);
    }
    return parts.length ? parts.join(' AND ') : undefined;
  }

  /** Spread into a command: omits empty maps, which DynamoDB rejects. */
  params() {
    return {
      ...(Object.keys(this.names).length ? { ExpressionAttributeNames: this.names } : {}),
      ...(Object.keys(this.values).length ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}

const encodeCursor = (key: Record<string, unknown> | undefined) =>
  key ? Buffer.from(JSON.stringify(key)).toString('base64url') : undefined;

function decodeCursor(cursor: string | undefined): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new InvalidCursorError();
}

export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
  constructor() {
    super('the page token is not valid');
  }
}

export class DynamoStateStore implements StateStore {
  readonly #doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
  ) {
    this.#doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
    });
  }

  async get<T extends Item>(key: ItemKey, opts: { consistent?: boolean } = {}): Promise<T | undefined> {
    const out = await this.#doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: key.pk, sk: key.sk }, ConsistentRead: opts.consistent ?? true }),
    );
    const item = out.Item as T | undefined;
    return item && !isExpired(item as { expiresAt?: unknown }) ? item : undefined;
  }

  async getMany<T extends Item>(keys: ItemKey[]): Promise<T[]> {
    const out: T[] = [];
    for (let i = 0; i < keys.length; i += 100) {
      let pending: Record<string, unknown>[] | undefined = keys.slice(i, i + 100).map((k) => ({ pk: k.pk, sk: k.sk }));
      for (let attempt = 0; pending?.length; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
        const res = await this.#doc.send(
          new BatchGetCommand({ RequestItems: { [this.table]: { Keys: pending, ConsistentRead: true } } }),
        );
        out.push(...((res.Responses?.[this.table] ?? []) as T[]));
        pending = res.UnprocessedKeys?.[this.table]?.Keys as Record<string, unknown>[] | undefined;
      }
    }
    return out.filter((item) => !isExpired(item as { expiresAt?: unknown }));
  }

  async put(item: Item, opts: { condition?: Condition } = {}): Promise<void> {
    const x = new Expression();
    const ConditionExpression = x.condition(opts.condition);
    await this.#guard(item, () =>
      this.#doc.send(new PutCommand({ TableName: this.table, Item: item, ConditionExpression, ...x.params() })),
    );
  }

  async update<T extends Item>(key: ItemKey, update: Update, opts: { condition?: Condition } = {}): Promise<T> {
    const x = new Expression();
    const set = Object.entries(update.set ?? {})
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${x.name(k)} = ${x.value(v)}`);
    const add = Object.entries(update.add ?? {}).map(([k, v]) => `${x.name(k)} ${x.value(v)}`);
    const remove = (update.remove ?? []).map((k) => x.name(k));
    const drop = Object.entries(update.delete ?? {}).map(([k, v]) => `${x.name(k)} ${x.value(v)}`);
    const clauses = [
      set.length ? `SET ${set.join(', ')}` : '',
      add.length ? `ADD ${add.join(', ')}` : '',
      remove.length ? `REMOVE ${remove.join(', ')}` : '',
      drop.length ? `DELETE ${drop.join(', ')}` : '',
    ].filter(Boolean);
    if (!clauses.length) throw new Error('update with nothing to change');
    const ConditionExpression = x.condition(opts.condition);
    const out = await this.#guard(key, () =>
      this.#doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: key.pk, sk: key.sk },
          UpdateExpression: clauses.join(' '),
          ConditionExpression,
          ReturnValues: 'ALL_NEW',
          ...x.params(),
        }),
      ),
    );
    return out.Attributes as T;
  }

  async delete<T extends Item>(key: ItemKey, opts: { condition?: Condition } = {}): Promise<T | undefined> {
    const x = new Expression();
    const ConditionExpression = x.condition(opts.condition);
    const out = await this.#guard(key, () =>
      this.#doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { pk: key.pk, sk: key.sk },
          ConditionExpression,
          ReturnValues: 'ALL_OLD',
          ...x.params(),
        }),
      ),
    );
    return out.Attributes as T | undefined;
  }

  async query<T extends Item>(pk: string, opts: QueryOptions = {}): Promise<Page<T>> {
    const x = new Expression();
    const [pkName, skName] = opts.index ? [`${opts.index}pk`, `${opts.index}sk`] : ['pk', 'sk'];
    let KeyConditionExpression = `${x.name(pkName)} = ${x.value(pk)}`;
    if (opts.beginsWith) KeyConditionExpression += ` AND begins_with(${x.name(skName)}, ${x.value(opts.beginsWith)})`;
    else if (opts.below !== undefined) KeyConditionExpression += ` AND ${x.name(skName)} < ${x.value(opts.below)}`;
    const now = Math.floor(Date.now() / 1000);
    // Expired items are filtered out here because the backend may not have deleted them yet.
    const FilterExpression = `attribute_not_exists(${x.name('expiresAt')}) OR ${x.name('expiresAt')} > ${x.value(now)}`;
    const out = await this.#doc.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: opts.index,
        KeyConditionExpression,
        FilterExpression,
        ScanIndexForward: !opts.descending,
        Limit: opts.limit,
        ExclusiveStartKey: decodeCursor(opts.cursor),
        ...x.params(),
      }),
    );
    return { items: (out.Items ?? []) as T[], cursor: encodeCursor(out.LastEvaluatedKey) };
  }

  async scan<T extends Item>(opts: { filter: Condition; cursor?: string; limit?: number }): Promise<Page<T>> {
    const x = new Expression();
    const out = await this.#doc.send(
      new ScanCommand({
        TableName: this.table,
        FilterExpression: x.condition(opts.filter),
        Limit: opts.limit ?? 500,
        ExclusiveStartKey: decodeCursor(opts.cursor),
        ...x.params(),
      }),
    );
    return { items: (out.Items ?? []) as T[], cursor: encodeCursor(out.LastEvaluatedKey) };
  }

  async putMany(items: Item[]): Promise<void> {
    for (let i = 0; i < items.length; i += 25) {
      let requests: Record<string, unknown>[] | undefined = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
      // Unprocessed items come back under load; retry them with a short back-off.
      for (let attempt = 0; requests?.length; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
        const out = await this.#doc.send(new BatchWriteCommand({ RequestItems: { [this.table]: requests as never } }));
        requests = out.UnprocessedItems?.[this.table] as Record<string, unknown>[] | undefined;
      }
    }
  }

  async #guard<R>(key: ItemKey, run: () => Promise<R>): Promise<R> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) throw new ConditionFailedError(key);
      throw err;
    }
  }
}
