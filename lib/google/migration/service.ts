/**
 * The migration assessment service: locations, annotations, collectors and their long-running
 * operations, kept in the state store.
 *
 * Every mutating method checks the request and the collector's state at once (so that a client
 * mistake is an immediate 4xx), stores an Operation with `done: false` and sends a message to the
 * operations queue; `runOperation` (the queue consumer) later applies the change and finishes the
 * operation with `response` or `error`. Delete is the exception that the lifecycle demands: the
 * collector shows STATE_DELETING as soon as the call returns, and the message, delayed by the grace
 * period, removes it.
 *
 * Concurrency: collectors carry a `version` and every change is a conditional write on it; operation
 * records move `queued → running → done` by conditional writes, so a cancel and the consumer can
 * never both win, and a redelivered message finds its work already done. No transactions are
 * needed: where two records change, the one that makes the change visible is written last and a
 * failure undoes the first.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import * as z from 'zod';
import { ApiError } from '../../kernel/errors.js';
import { fieldErrors } from '../../http/middleware/validate.js';
import type { Logger } from '../../kernel/log.js';
import type { Queue } from '../../adapters/queue/port.js';
import { ConditionFailedError, epochSeconds, type Item, type ItemKey, type StateStore } from '../../adapters/state/port.js';
import { listPage, type ListPage } from '../list.js';
import { timestamp } from '../wire.js';
import { applyMask, parseUpdateMask } from './mask.js';
import {
  annotationBody,
  collectorBody,
  COLLECTOR_FIELDS,
  LOCATION_FIELDS,
  mutableOf,
  OPERATION_FIELDS,
  AnnotationType,
  type Annotation,
  type Collector,
  type CollectorMutableField,
  type CollectorStateName,
  type Location,
  type OperationView,
  type Status,
} from './model.js';
import { childName, invalidField, locationName, parseChildName, projectName, type ChildName, type LocationName } from './names.js';

export interface MigrationSettings {
  locations: readonly string[];
  deleteGraceSeconds: number;
  operationDelaySeconds: number;
  requestIdTtlSeconds: number;
  operationRetentionDays: number;
  pageSizes: { default: number; max: number };
}

/** What the operations queue carries: only the operation's name; its record holds the work. */
export const operationMessage = z.object({ operation: z.string().min(1) });
export type OperationMessage = z.output<typeof operationMessage>;

type Work =
  | { kind: 'createCollector' }
  | { kind: 'updateCollector'; mask: string[]; values: Partial<Pick<Collector, CollectorMutableField>> }
  | { kind: 'registerCollector' | 'pauseCollector' | 'resumeCollector' }
  | { kind: 'deleteCollector'; snapshot: Collector }
  | { kind: 'createAnnotation'; annotation: Annotation };

interface OperationRecord extends Item {
  name: string;
  verb: string;
  target: string;
  createTime: string;
  endTime?: string;
  done: boolean;
  /** queued → running (claimed by the consumer) → done. Only a queued operation can be cancelled outright. */
  phase: 'queued' | 'running' | 'done';
  requestedCancellation?: boolean;
  /** DeleteOperation on an unfinished operation hides it; its work still completes. */
  deleted?: boolean;
  /** Epoch ms before which the work must not run (the delete grace period). */
  notBefore: number;
  work: Work;
  response?: OperationView['response'];
  error?: Status;
  statusMessage?: string;
}

interface CollectorRecord extends Item {
  version: number;
  /** Mirrors collector.state for conditions. */
  state: CollectorStateName;
  collector: Collector;
  /** The operation that created it (a cancelled create removes it while still initializing). */
  createOperation?: string;
  /** The delete operation in progress, and the state to restore if it is cancelled. */
  pendingDelete?: string;
  stateBeforeDelete?: CollectorStateName;
}

interface AnnotationRecord extends Item {
  annotation: Annotation;
}

interface RequestIdRecord extends Item {
  operation: string;
  fingerprint: string;
  createdAt: number;
}

/** A state transition method of a collector. */
export type CollectorAction = 'register' | 'pause' | 'resume';

/** From which states each action is allowed, and where it leads (spec §2.3). */
export const TRANSITIONS: Record<CollectorAction, { from: readonly CollectorStateName[]; to: CollectorStateName }> = {
  register: { from: ['STATE_INITIALIZING', 'STATE_READY_TO_USE', 'STATE_REGISTERED'], to: 'STATE_REGISTERED' },
  resume: { from: ['STATE_REGISTERED', 'STATE_PAUSED', 'STATE_ACTIVE'], to: 'STATE_ACTIVE' },
  pause: { from: ['STATE_ACTIVE', 'STATE_PAUSED'], to: 'STATE_PAUSED' },
};
const GONE: readonly CollectorStateName[] = ['STATE_DELETING', 'STATE_DECOMMISSIONED'];

/** The version a collector reports once its appliance registered. */
export const COLLECTOR_CLIENT_VERSION = '1.0.0';

/** Display names of well-known regions; others show their id. */
const REGION_NAMES: Record<string, string> = {
  'us-central1': 'Iowa',
  'us-east1': 'South Carolina',
  'us-east4': 'Northern Virginia',
  'us-west1': 'Oregon',
  'us-west2': 'Los Angeles',
  'europe-west1': 'Belgium',
  'europe-west2': 'London',
  'europe-west3': 'Frankfurt',
  'europe-west4': 'Netherlands',
  'asia-east1': 'Taiwan',
  'asia-northeast1': 'Tokyo',
  'asia-south1': 'Mumbai',
  'asia-southeast1': 'Singapore',
  'australia-southeast1': 'Sydney',
  'northamerica-northeast1': 'Montréal',
  'southamerica-east1': 'São Paulo',
};

const RPC = { CANCELLED: 1, NOT_FOUND: 5, FAILED_PRECONDITION: 9, ABORTED: 10 } as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** JSON with sorted keys, for request fingerprints. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
const fingerprintOf = (...parts: unknown[]) => createHash('sha256').update(stableJson(parts)).digest('base64url');

function notFound(kind: string, name: string): ApiError {
  return new ApiError('NOT_FOUND', `${kind} "${name}" not found.`, {
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ResourceInfo',
        resourceType: `rapidmigrationassessment.googleapis.com/${kind}`,
        resourceName: name,
        description: `${kind} not found`,
      },
    ],
  });
}

function preconditionFailed(name: string, message: string): ApiError {
  return new ApiError('FAILED_PRECONDITION', message, {
    details: [{ '@type': 'type.googleapis.com/google.rpc.PreconditionFailure', violations: [{ type: 'STATE', subject: name, description: message }] }],
  });
}

/** Parses a request body part with its schema; problems are INVALID_ARGUMENT with field violations. */
function parseBody<S extends z.ZodType>(schema: S, body: unknown, field: string): z.output<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError('INVALID_ARGUMENT', `Invalid JSON payload: ${field} must be a JSON object.`, { fields: { [field]: ['must be a JSON object'] } });
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    const fields = fieldErrors(result.error, field);
    // zod names unknown keys in the message, at the object's path; say it as Google does.
    throw new ApiError('INVALID_ARGUMENT', 'Invalid JSON payload received.', { fields });
  }
  return result.data;
}

const collectorKey = (n: ChildName): ItemKey => ({ pk: `rma#${n.parent}#collectors`, sk: n.id });
const annotationKey = (n: ChildName): ItemKey => ({ pk: `rma#${n.parent}#annotations`, sk: n.id });
const operationKey = (n: ChildName): ItemKey => ({ pk: `rma#${n.parent}#operations`, sk: n.id });

export class MigrationService {
  constructor(
    private readonly store: StateStore,
    private readonly queue: Queue,
    private readonly settings: MigrationSettings,
    private readonly log?: Logger,
  ) {}

  // ---- Locations -----------------------------------------------------------------------------

  #location(project: string, id: string): Location {
    const name = `projects/${project}/locations/${id}`;
    return { name, locationId: id, displayName: REGION_NAMES[id] ?? id, labels: { 'cloud.googleapis.com/region': id } };
  }

  /** A served location, or NOT_FOUND; `field` is the request field that named it. */
  requireLocation(field: string, project: string, location: string): LocationName {
    const loc = locationName(field, project, location);
    if (!this.settings.locations.includes(location)) {
      throw new ApiError('NOT_FOUND', `Location "${loc.name}" not found; served locations: ${this.settings.locations.join(', ')}.`, {
        details: [{ '@type': 'type.googleapis.com/google.rpc.ResourceInfo', resourceType: 'locations.googleapis.com/Location', resourceName: loc.name }],
      });
    }
    return loc;
  }

  getLocation(project: string, location: string): Location {
    this.requireLocation('name', project, location);
    return this.#location(project, location);
  }

  listLocations(project: string, params: URLSearchParams): ListPage<Location> {
    const parent = projectName('name', project);
    const all = this.settings.locations.map((id) => this.#location(project, id));
    return listPage(all, { collection: parent, params, schema: LOCATION_FIELDS, orderable: false, pageSizes: this.settings.pageSizes });
  }

  // ---- Collectors ----------------------------------------------------------------------------

  async #collectorRecord(n: ChildName): Promise<CollectorRecord | undefined> {
    return this.store.get<CollectorRecord>(collectorKey(n));
  }

  async getCollector(n: ChildName): Promise<Collector> {
    this.requireLocation('name', n.project, n.location);
    const rec = await this.#collectorRecord(n);
    if (!rec) throw notFound('Collector', n.name);
    return rec.collector;
  }

  async listCollectors(parent: LocationName, params: URLSearchParams): Promise<ListPage<Collector>> {
    this.requireLocation('parent', parent.project, parent.location);
    const all = (await this.#queryAll<CollectorRecord>(`rma#${parent.name}#collectors`)).map((r) => r.collector);
    return listPage(all, { collection: parent.name, params, schema: COLLECTOR_FIELDS, pageSizes: this.settings.pageSizes });
  }

  async createCollector(parent: LocationName, collectorId: string | undefined, body: unknown, requestId: string | undefined): Promise<OperationView> {
    this.requireLocation('parent', parent.project, parent.location);
    if (!collectorId) throw invalidField('collectorId', 'required; give the new collector\'s id as the collectorId parameter');
    const n = childName('collectorId', parent.project, parent.location, 'collectors', collectorId);
    const input = parseBody(collectorBody, body, 'collector');
    const values = mutableOf(input);
    return this.#idempotent('CreateCollector', parent, requestId, fingerprintOf(n.name, values), async (opName) => {
      const now = timestamp(Date.now());
      const sourceId = randomUUID();
      const collector: Collector = {
        name: n.name,
        createTime: now,
        updateTime: now,
        ...values,
        bucket: randomUUID(),
        state: 'STATE_INITIALIZING',
        guestOsScan: { coreSource: `${parent.name}/sources/${sourceId}` },
        vsphereScan: { coreSource: `${parent.name}/sources/${sourceId}` },
      };
      const record: CollectorRecord = { ...collectorKey(n), version: 1, state: collector.state, collector, createOperation: opName };
      try {
        await this.store.put(record, { condition: { exists: false } });
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
        throw new ApiError('ALREADY_EXISTS', `Collector "${n.name}" already exists.`, {
          details: [{ '@type': 'type.googleapis.com/google.rpc.ResourceInfo', resourceType: 'rapidmigrationassessment.googleapis.com/Collector', resourceName: n.name }],
        });
      }
      try {
        return await this.#startOperation(opName, 'create', n.name, { kind: 'createCollector' }, this.settings.operationDelaySeconds);
      } catch (err) {
        await this.store.delete(collectorKey(n), { condition: { equals: { createOperation: opName, version: 1 } } }).catch(() => undefined);
        throw err;
      }
    });
  }

  async updateCollector(n: ChildName, body: unknown, updateMask: string | undefined, requestId: string | undefined): Promise<OperationView> {
    this.requireLocation('collector.name', n.project, n.location);
    const input = parseBody(collectorBody, body, 'collector');
    const mask = parseUpdateMask(updateMask);
    const all = mutableOf(input);
    // Only what the mask names is kept (a GAPIC client sends `labels: {}` for an unset map).
    const values: Partial<Pick<Collector, CollectorMutableField>> = {};
    for (const path of mask) {
      const field = (path.startsWith('labels.') ? 'labels' : path) as CollectorMutableField;
      if (all[field] !== undefined) (values as Record<string, unknown>)[field] = all[field];
    }
    return this.#idempotent('UpdateCollector', n, requestId, fingerprintOf(mask, values), async (opName) => {
      const rec = await this.#collectorRecord(n);
      if (!rec) throw notFound('Collector', n.name);
      if (GONE.includes(rec.state)) throw preconditionFailed(n.name, `Collector "${n.name}" is ${rec.state} and can no longer be updated.`);
      return this.#startOperation(opName, 'update', n.name, { kind: 'updateCollector', mask, values }, this.settings.operationDelaySeconds);
    });
  }

  async actOnCollector(action: CollectorAction, n: ChildName, requestId: string | undefined): Promise<OperationView> {
    this.requireLocation('name', n.project, n.location);
    return this.#idempotent(`${action}Collector`, n, requestId, fingerprintOf(action), async (opName) => {
      const rec = await this.#collectorRecord(n);
      if (!rec) throw notFound('Collector', n.name);
      const rule = TRANSITIONS[action];
      if (!rule.from.includes(rec.state)) {
        throw preconditionFailed(n.name, `Cannot ${action} collector "${n.name}" in ${rec.state}; ${action} needs ${rule.from.join(' or ')}.`);
      }
      return this.#startOperation(opName, action, n.name, { kind: `${action}Collector` }, this.settings.operationDelaySeconds);
    });
  }

  async deleteCollector(n: ChildName, requestId: string | undefined): Promise<OperationView> {
    this.requireLocation('name', n.project, n.location);
    return this.#idempotent('DeleteCollector', n, requestId, fingerprintOf('delete'), async (opName) => {
      for (let attempt = 0; ; attempt++) {
        const rec = await this.#collectorRecord(n);
        if (!rec) throw notFound('Collector', n.name);
        if (GONE.includes(rec.state)) throw preconditionFailed(n.name, `Collector "${n.name}" is already ${rec.state}.`);
        const collector: Collector = { ...rec.collector, state: 'STATE_DELETING', updateTime: timestamp(Date.now()) };
        try {
          await this.store.update(
            collectorKey(n),
            { set: { collector, state: collector.state, version: rec.version + 1, pendingDelete: opName, stateBeforeDelete: rec.state } },
            { condition: { equals: { version: rec.version } } },
          );
        } catch (err) {
          if (err instanceof ConditionFailedError && attempt < 5) continue;
          throw err;
        }
        try {
          return await this.#startOperation(opName, 'delete', n.name, { kind: 'deleteCollector', snapshot: collector }, this.settings.deleteGraceSeconds);
        } catch (err) {
          await this.#restoreAfterDelete(n, opName).catch(() => undefined);
          throw err;
        }
      }
    });
  }

  /** Undoes a delete that has not happened yet: the collector gets its earlier state back. */
  async #restoreAfterDelete(n: ChildName, opName: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const rec = await this.#collectorRecord(n);
      if (!rec || rec.pendingDelete !== opName || rec.state !== 'STATE_DELETING') return;
      const state = rec.stateBeforeDelete ?? 'STATE_READY_TO_USE';
      try {
        await this.store.update(
          collectorKey(n),
          {
            set: { collector: { ...rec.collector, state, updateTime: timestamp(Date.now()) }, state, version: rec.version + 1 },
            remove: ['pendingDelete', 'stateBeforeDelete'],
          },
          { condition: { equals: { version: rec.version } } },
        );
        return;
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
      }
    }
  }

  // ---- Annotations ---------------------------------------------------------------------------

  async createAnnotation(parent: LocationName, body: unknown, requestId: string | undefined): Promise<OperationView> {
    this.requireLocation('parent', parent.project, parent.location);
    const input = parseBody(annotationBody, body, 'annotation');
    const labels = input.labels && Object.keys(input.labels).length ? input.labels : undefined;
    const type = (input.type === undefined ? undefined : AnnotationType.parse(input.type)) ?? 'TYPE_UNSPECIFIED';
    return this.#idempotent('CreateAnnotation', parent, requestId, fingerprintOf(labels, type), (opName) => {
      const now = timestamp(Date.now());
      const n = childName('parent', parent.project, parent.location, 'annotations', randomUUID());
      const annotation: Annotation = { name: n.name, createTime: now, updateTime: now, labels, type };
      return this.#startOperation(opName, 'create', n.name, { kind: 'createAnnotation', annotation }, this.settings.operationDelaySeconds);
    });
  }

  async getAnnotation(n: ChildName): Promise<Annotation> {
    this.requireLocation('name', n.project, n.location);
    const rec = await this.store.get<AnnotationRecord>(annotationKey(n));
    if (!rec) throw notFound('Annotation', n.name);
    return rec.annotation;
  }

  // ---- Operations ----------------------------------------------------------------------------

  #view(rec: OperationRecord): OperationView {
    return {
      name: rec.name,
      createTime: rec.createTime,
      endTime: rec.endTime,
      target: rec.target,
      verb: rec.verb,
      statusMessage: rec.statusMessage,
      requestedCancellation: rec.requestedCancellation,
      done: rec.done,
      response: rec.response,
      error: rec.error,
    };
  }

  async #operationRecord(n: ChildName): Promise<OperationRecord | undefined> {
    const rec = await this.store.get<OperationRecord>(operationKey(n));
    return rec && !rec.deleted ? rec : undefined;
  }

  async getOperation(n: ChildName): Promise<OperationView> {
    this.requireLocation('name', n.project, n.location);
    const rec = await this.#operationRecord(n);
    if (!rec) throw notFound('Operation', n.name);
    return this.#view(rec);
  }

  async listOperations(parent: LocationName, params: URLSearchParams): Promise<ListPage<OperationView>> {
    this.requireLocation('name', parent.project, parent.location);
    const records = (await this.#queryAll<OperationRecord>(`rma#${parent.name}#operations`)).filter((r) => !r.deleted);
    // Filters see the operation as its JSON does (metadata.verb, error.code …).
    const rows = records.map((r) => ({
      name: r.name,
      done: r.done,
      metadata: { verb: r.verb, target: r.target, createTime: r.createTime, endTime: r.endTime, requestedCancellation: r.requestedCancellation === true },
      error: r.error ? { code: r.error.code } : undefined,
      record: r,
    }));
    const page = listPage(rows, {
      collection: parent.name,
      params,
      schema: OPERATION_FIELDS,
      orderable: false,
      defaultOrder: 'metadata.createTime',
      pageSizes: this.settings.pageSizes,
    });
    return { items: page.items.map((row) => this.#view(row.record)), nextPageToken: page.nextPageToken };
  }

  /**
   * Best-effort cancellation (google.longrunning): an operation still waiting for the queue ends at
   * once with CANCELLED and its effect is undone (a created collector removed, a deleted one
   * restored); one being applied right now is only marked `requestedCancellation`; a finished one is
   * left as it is.
   */
  async cancelOperation(n: ChildName): Promise<void> {
    this.requireLocation('name', n.project, n.location);
    const rec = await this.#operationRecord(n);
    if (!rec) throw notFound('Operation', n.name);
    if (rec.done) return;
    const now = Date.now();
    const cancelled = await this.#finish(
      n,
      'queued',
      {
        requestedCancellation: true,
        error: { code: RPC.CANCELLED, message: 'Operation cancelled.' },
        statusMessage: 'Cancelled',
        expiresAt: this.#retention(now),
      },
      now,
    );
    if (!cancelled) {
      await this.store
        .update(operationKey(n), { set: { requestedCancellation: true } }, { condition: { equals: { done: false } } })
        .catch((e: unknown) => {
          if (!(e instanceof ConditionFailedError)) throw e;
        });
      return;
    }
    const target = parseChildName(rec.target);
    if (!target) return;
    if (rec.work.kind === 'createCollector') {
      await this.store
        .delete(collectorKey(target), { condition: { equals: { createOperation: rec.name, state: 'STATE_INITIALIZING' } } })
        .catch((e: unknown) => {
          if (!(e instanceof ConditionFailedError)) throw e;
        });
    } else if (rec.work.kind === 'deleteCollector') {
      await this.#restoreAfterDelete(target, rec.name);
    }
  }

  /** Deletes the operation record. The work of an unfinished operation still completes (it is not a cancel). */
  async deleteOperation(n: ChildName): Promise<void> {
    this.requireLocation('name', n.project, n.location);
    const rec = await this.#operationRecord(n);
    if (!rec) throw notFound('Operation', n.name);
    if (rec.done) {
      await this.store.delete(operationKey(n));
      return;
    }
    const keepUntil = Math.max(Date.now(), rec.notBefore) + 86_400_000;
    await this.store.update(operationKey(n), { set: { deleted: true, expiresAt: epochSeconds(keepUntil) } });
  }

  /** Marks an operation done if it is still in `from`; false when another caller got there first. */
  async #finish(n: ChildName, from: 'queued' | 'running', fields: Record<string, unknown>, now: number): Promise<boolean> {
    try {
      await this.store.update(
        operationKey(n),
        { set: { done: true, phase: 'done', endTime: timestamp(now), ...fields } },
        { condition: { equals: { phase: from, ...(from === 'queued' ? { done: false } : {}) } } },
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionFailedError) return false;
      throw err;
    }
  }

  #retention(now: number): number {
    return epochSeconds(now + this.settings.operationRetentionDays * 86_400_000);
  }

  async #startOperation(name: string, verb: string, target: string, work: Work, delaySeconds: number): Promise<OperationView> {
    const n = parseChildName(name)!;
    const now = Date.now();
    const rec: OperationRecord = {
      ...operationKey(n),
      name,
      verb,
      target,
      createTime: timestamp(now),
      done: false,
      phase: 'queued',
      notBefore: now + delaySeconds * 1000,
      work,
    };
    await this.store.put(rec, { condition: { exists: false } });
    try {
      await this.queue.send('operations', { operation: name } satisfies OperationMessage, { delaySeconds: Math.min(delaySeconds, 900) });
    } catch (err) {
      await this.store.delete(operationKey(n)).catch(() => undefined);
      throw err;
    }
    return this.#view(rec);
  }

  /**
   * AIP-155: a request with a `requestId` runs once; a retry with the same id and the same request
   * returns the same operation, one with a different request is INVALID_ARGUMENT. The id is
   * reserved (conditional write) before the work starts and released if the work fails.
   */
  async #idempotent(
    method: string,
    scope: { name: string; project: string; location: string },
    requestId: string | undefined,
    fingerprint: string,
    run: (operationName: string) => Promise<OperationView>,
  ): Promise<OperationView> {
    const opName = `projects/${scope.project}/locations/${scope.location}/operations/operation-${Date.now()}-${randomBytes(6).toString('hex')}`;
    if (requestId === undefined || requestId === '') return run(opName);
    if (requestId.length > 128 || !/^[\x21-\x7e]+$/.test(requestId)) {
      throw invalidField('requestId', 'use at most 128 printable characters, ideally a UUID');
    }
    if (/^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(requestId)) throw invalidField('requestId', 'the all-zero UUID is not a valid request id');
    const key: ItemKey = { pk: `rma#request#${method}#${scope.name}#${requestId}`, sk: 'request' };
    for (;;) {
      const existing = await this.store.get<RequestIdRecord>(key);
      if (existing) return this.#replay(existing, fingerprint);
      try {
        await this.store.put(
          { ...key, operation: opName, fingerprint, createdAt: Date.now(), expiresAt: epochSeconds(Date.now() + this.settings.requestIdTtlSeconds * 1000) },
          { condition: { exists: false } },
        );
        break;
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
      }
    }
    try {
      return await run(opName);
    } catch (err) {
      await this.store.delete(key, { condition: { equals: { operation: opName } } }).catch(() => undefined);
      throw err;
    }
  }

  async #replay(existing: RequestIdRecord, fingerprint: string): Promise<OperationView> {
    if (existing.fingerprint !== fingerprint) {
      throw invalidField('requestId', 'this requestId was already used for a different request; use a new id for a new request');
    }
    const n = parseChildName(existing.operation)!;
    // The first request may still be writing its operation.
    for (let waited = 0; ; waited += 100) {
      const op = await this.store.get<OperationRecord>(operationKey(n));
      if (op) return this.#view(op);
      if (Date.now() - existing.createdAt > 10_000) throw notFound('Operation', existing.operation);
      if (waited >= 3000) throw new ApiError('ABORTED', 'The first request with this requestId is still in progress; retry shortly.');
      await sleep(100);
    }
  }

  async #queryAll<T extends Item>(pk: string): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.store.query<T>(pk, { cursor });
      out.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  // ---- The queue consumer --------------------------------------------------------------------

  /**
   * Runs the work of one operation and finishes it. Safe to run more than once for the same message
   * (at-least-once delivery): a finished or cancelled operation is left alone, every state change
   * is conditional, and reapplying a change that already happened changes nothing more.
   */
  async runOperation(operation: string): Promise<void> {
    const n = parseChildName(operation);
    if (!n) {
      this.log?.error('operation message with a malformed name dropped', { operation });
      return;
    }
    const rec = await this.store.get<OperationRecord>(operationKey(n));
    if (!rec) {
      this.log?.warn('operation no longer exists', { operation });
      return;
    }
    if (rec.done) return;
    const wait = rec.notBefore - Date.now();
    if (wait > 1000) {
      // Longer than SQS can delay one message (900 s), or delivered early: wait for the rest.
      await this.queue.send('operations', { operation } satisfies OperationMessage, { delaySeconds: Math.min(900, Math.ceil(wait / 1000)) });
      return;
    }
    if (wait > 0) await sleep(wait);
    try {
      await this.store.update(operationKey(n), { set: { phase: 'running' } }, { condition: { equals: { done: false }, oneOf: { phase: ['queued', 'running'] } } });
    } catch (err) {
      if (err instanceof ConditionFailedError) return; // cancelled in the meantime
      throw err;
    }
    const outcome = await this.#apply(rec);
    const now = Date.now();
    await this.#finish(
      n,
      'running',
      {
        ...('error' in outcome ? { error: outcome.error, statusMessage: 'Failed' } : { response: outcome.response, statusMessage: 'Succeeded' }),
        expiresAt: rec.deleted ? epochSeconds(now + 86_400_000) : this.#retention(now),
      },
      now,
    );
    this.log?.info('operation finished', { operation, verb: rec.verb, target: rec.target, error: 'error' in outcome ? outcome.error.message : undefined });
  }

  async #apply(rec: OperationRecord): Promise<{ response: NonNullable<OperationView['response']> } | { error: Status }> {
    const target = parseChildName(rec.target);
    if (!target) return { error: { code: RPC.NOT_FOUND, message: `Malformed target ${rec.target}.` } };
    const work = rec.work;
    const missing = { error: { code: RPC.NOT_FOUND, message: `Collector "${rec.target}" not found.` } };
    const now = () => timestamp(Date.now());
    switch (work.kind) {
      case 'createAnnotation': {
        await this.store.put({ ...annotationKey(target), annotation: work.annotation } satisfies AnnotationRecord);
        return { response: { annotation: work.annotation } };
      }
      case 'createCollector':
        return this.#mutate(target, (r) => {
          if (!r) return { error: { code: RPC.ABORTED, message: `Collector "${rec.target}" was removed before its creation completed.` } };
          if (GONE.includes(r.state)) return { error: { code: RPC.ABORTED, message: `Collector "${rec.target}" was deleted before its creation completed.` } };
          if (r.state !== 'STATE_INITIALIZING') return { keep: r.collector };
          return { write: { ...r.collector, state: 'STATE_READY_TO_USE', updateTime: now() } };
        });
      case 'updateCollector':
        return this.#mutate(target, (r) => {
          if (!r) return missing;
          if (GONE.includes(r.state)) return { error: { code: RPC.FAILED_PRECONDITION, message: `Collector "${rec.target}" is ${r.state}.` } };
          return { write: { ...applyMask(r.collector, work.mask, work.values), updateTime: now() } };
        });
      case 'registerCollector':
      case 'pauseCollector':
      case 'resumeCollector': {
        const action = work.kind.replace('Collector', '') as CollectorAction;
        const rule = TRANSITIONS[action];
        return this.#mutate(target, (r) => {
          if (!r) return missing;
          if (!rule.from.includes(r.state)) {
            return { error: { code: RPC.FAILED_PRECONDITION, message: `Cannot ${action} collector "${rec.target}" in ${r.state}; ${action} needs ${rule.from.join(' or ')}.` } };
          }
          const next: Collector = { ...r.collector, state: rule.to, updateTime: now() };
          if (action === 'register') next.clientVersion ??= COLLECTOR_CLIENT_VERSION;
          return { write: next };
        });
      }
      case 'deleteCollector':
        return this.#mutate(target, (r) => {
          const decommissioned = (c: Collector): Collector => ({ ...c, state: 'STATE_DECOMMISSIONED', updateTime: now() });
          // Already removed by an earlier delivery of this message.
          if (!r) return { keep: decommissioned(work.snapshot) };
          if (r.pendingDelete !== rec.name) return { error: { code: RPC.ABORTED, message: `Collector "${rec.target}" was restored or re-created.` } };
          return { remove: decommissioned(r.collector) };
        });
    }
  }

  /** Reads a collector, decides, and writes conditionally on its version; retried on a concurrent change. */
  async #mutate(
    n: ChildName,
    decide: (rec: CollectorRecord | undefined) => { error: Status } | { keep: Collector } | { write: Collector } | { remove: Collector },
  ): Promise<{ response: { collector: Collector } } | { error: Status }> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const rec = await this.#collectorRecord(n);
      const d = decide(rec);
      if ('error' in d) return d;
      if ('keep' in d) return { response: { collector: d.keep } };
      try {
        if ('remove' in d) {
          await this.store.delete(collectorKey(n), { condition: { equals: { version: rec!.version } } });
          return { response: { collector: d.remove } };
        }
        await this.store.update(
          collectorKey(n),
          { set: { collector: d.write, state: d.write.state, version: rec!.version + 1 } },
          { condition: { equals: { version: rec!.version } } },
        );
        return { response: { collector: d.write } };
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
      }
    }
    throw new Error(`collector ${n.name} kept changing; the message will be delivered again`);
  }
}
