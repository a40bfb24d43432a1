/**
 * Rapid Migration Assessment v1 resources: Collector, Annotation, Location and the long-running
 * Operation with its OperationMetadata. Resources are kept as their JSON views with enum names
 * (what the state store holds and filters run on); `*Json` renders them for a response, with enum
 * numbers when the request asked for `$alt=json;enum-encoding=int`, leaving unset fields out.
 */
import * as z from 'zod';
import { anyOf, compact, ProtoEnum, type EnumEncoding } from '../wire.js';
import type { FieldSchema } from '../filter.js';

export const SERVICE = 'rapidmigrationassessment.googleapis.com';
export const PACKAGE = 'google.cloud.rapidmigrationassessment.v1';

export const CollectorState = new ProtoEnum(`${PACKAGE}.Collector.State`, [
  'STATE_UNSPECIFIED',
  'STATE_INITIALIZING',
  'STATE_READY_TO_USE',
  'STATE_REGISTERED',
  'STATE_ACTIVE',
  'STATE_PAUSED',
  'STATE_DELETING',
  'STATE_DECOMMISSIONED',
  'STATE_ERROR',
]);
export type CollectorStateName = (typeof CollectorState.names)[number];

export const AnnotationType = new ProtoEnum(`${PACKAGE}.Annotation.Type`, ['TYPE_UNSPECIFIED', 'TYPE_LEGACY_EXPORT_CONSENT', 'TYPE_QWIKLAB']);
export type AnnotationTypeName = (typeof AnnotationType.names)[number];

export interface Collector {
  name: string;
  createTime: string;
  updateTime: string;
  labels?: Record<string, string>;
  displayName?: string;
  description?: string;
  serviceAccount?: string;
  bucket?: string;
  /** int64, as a decimal string. */
  expectedAssetCount?: string;
  state: CollectorStateName;
  clientVersion?: string;
  guestOsScan?: { coreSource?: string };
  vsphereScan?: { coreSource?: string };
  collectionDays?: number;
  eulaUri?: string;
}

export interface Annotation {
  name: string;
  createTime: string;
  updateTime: string;
  labels?: Record<string, string>;
  type: AnnotationTypeName;
}

export interface Location {
  name: string;
  locationId: string;
  displayName: string;
  labels: Record<string, string>;
}

/** google.rpc.Status of a failed operation. */
export interface Status {
  code: number;
  message: string;
  details?: Array<Record<string, unknown>>;
}

export interface OperationView {
  name: string;
  createTime: string;
  endTime?: string;
  target: string;
  verb: string;
  statusMessage?: string;
  requestedCancellation?: boolean;
  done: boolean;
  response?: { collector: Collector } | { annotation: Annotation };
  error?: Status;
}

const nonEmptyMap = (m: Record<string, string> | undefined) => (m && Object.keys(m).length ? m : undefined);
const nonEmpty = (s: string | undefined) => (s ? s : undefined);
const nonZero = (n: number | undefined) => (n ? n : undefined);
const scan = (s: { coreSource?: string } | undefined) => (s?.coreSource ? { coreSource: s.coreSource } : undefined);

export function collectorJson(c: Collector, enc: EnumEncoding): Record<string, unknown> {
  return compact({
    name: c.name,
    createTime: c.createTime,
    updateTime: c.updateTime,
    labels: nonEmptyMap(c.labels),
    displayName: nonEmpty(c.displayName),
    description: nonEmpty(c.description),
    serviceAccount: nonEmpty(c.serviceAccount),
    bucket: nonEmpty(c.bucket),
    expectedAssetCount: c.expectedAssetCount && c.expectedAssetCount !== '0' ? c.expectedAssetCount : undefined,
    state: c.state === 'STATE_UNSPECIFIED' ? undefined : CollectorState.encode(c.state, enc),
    clientVersion: nonEmpty(c.clientVersion),
    guestOsScan: scan(c.guestOsScan),
    vsphereScan: scan(c.vsphereScan),
    collectionDays: nonZero(c.collectionDays),
    eulaUri: nonEmpty(c.eulaUri),
  });
}

export function annotationJson(a: Annotation, enc: EnumEncoding): Record<string, unknown> {
  return compact({
    name: a.name,
    createTime: a.createTime,
    updateTime: a.updateTime,
    labels: nonEmptyMap(a.labels),
    type: a.type === 'TYPE_UNSPECIFIED' ? undefined : AnnotationType.encode(a.type, enc),
  });
}

/** Location.metadata is left out: an Any without a published `@type` breaks the GAPIC client. */
export const locationJson = (l: Location): Record<string, unknown> => ({ ...l });

export function operationJson(op: OperationView, enc: EnumEncoding): Record<string, unknown> {
  const metadata = anyOf(
    `${PACKAGE}.OperationMetadata`,
    compact({
      createTime: op.createTime,
      endTime: op.endTime,
      target: op.target,
      verb: op.verb,
      statusMessage: nonEmpty(op.statusMessage),
      requestedCancellation: op.requestedCancellation ? true : undefined,
      apiVersion: 'v1',
    }),
  );
  let response: Record<string, unknown> | undefined;
  if (op.done && op.response && 'collector' in op.response) response = anyOf(`${PACKAGE}.Collector`, collectorJson(op.response.collector, enc));
  if (op.done && op.response && 'annotation' in op.response) response = anyOf(`${PACKAGE}.Annotation`, annotationJson(op.response.annotation, enc));
  return compact({
    name: op.name,
    metadata,
    done: op.done,
    error: op.done && op.error ? compact({ code: op.error.code, message: op.error.message, details: op.error.details?.length ? op.error.details : undefined }) : undefined,
    response: op.done && !op.error ? response : undefined,
  });
}

/** Filterable and sortable fields (AIP-160 / AIP-132). */
export const COLLECTOR_FIELDS: FieldSchema = {
  name: { type: 'string' },
  createTime: { type: 'timestamp' },
  updateTime: { type: 'timestamp' },
  labels: { type: 'map' },
  displayName: { type: 'string' },
  description: { type: 'string' },
  serviceAccount: { type: 'string' },
  bucket: { type: 'string' },
  expectedAssetCount: { type: 'int' },
  state: { type: 'enum', enum: CollectorState },
  clientVersion: { type: 'string' },
  'guestOsScan.coreSource': { type: 'string' },
  'vsphereScan.coreSource': { type: 'string' },
  collectionDays: { type: 'int' },
  eulaUri: { type: 'string' },
};

export const OPERATION_FIELDS: FieldSchema = {
  name: { type: 'string' },
  done: { type: 'bool' },
  'metadata.verb': { type: 'string' },
  'metadata.target': { type: 'string' },
  'metadata.createTime': { type: 'timestamp' },
  'metadata.endTime': { type: 'timestamp' },
  'metadata.requestedCancellation': { type: 'bool' },
  'error.code': { type: 'int' },
};

export const LOCATION_FIELDS: FieldSchema = {
  name: { type: 'string' },
  locationId: { type: 'string' },
  displayName: { type: 'string' },
  labels: { type: 'map' },
};

// ---- Request bodies -------------------------------------------------------------------------

/** Proto3 JSON accepts `null` for any field, meaning "unset". */
const opt = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);

const LABEL_KEY = /^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u;
const LABEL_VALUE = /^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u;
const labels = z
  .record(z.string(), z.string())
  .refine((m) => Object.keys(m).length <= 64, 'at most 64 labels')
  .superRefine((m, ctx) => {
    for (const [k, v] of Object.entries(m)) {
      if (!LABEL_KEY.test(k)) {
        ctx.addIssue({ code: 'custom', path: [k], message: 'label keys start with a lower-case letter and hold up to 63 lower-case letters, digits, _ or -' });
      }
      if (!LABEL_VALUE.test(v)) ctx.addIssue({ code: 'custom', path: [k], message: 'label values hold up to 63 lower-case letters, digits, _ or -' });
    }
  });

const INT64_MAX = 9223372036854775807n;
/** int64 sent as a JSON string or number; kept as a decimal string. */
const int64 = z
  .union([z.string(), z.number()])
  .refine((v) => (typeof v === 'number' ? Number.isSafeInteger(v) : /^-?\d{1,19}$/.test(v)), 'must be an integer (int64, as a string or number)')
  .transform((v) => BigInt(v))
  .refine((v) => v >= 0n && v <= INT64_MAX, 'must be between 0 and 9223372036854775807')
  .transform((v) => v.toString());
const int32 = z.union([z.number(), z.string().regex(/^-?\d+$/).transform(Number)]).pipe(
  z.number().int('must be an integer').min(0, 'must not be negative').max(2147483647, 'must fit in int32'),
);
const timestampText = z.string();
const enumOf = (e: ProtoEnum) =>
  z.union([z.string(), z.number()]).refine((v) => e.parse(v) !== undefined, `must be one of ${e.names.join(', ')} or its number`);
const coreSource = z.strictObject({ coreSource: opt(z.string()) });

/** The mutable Collector fields, as UpdateCollector's mask names them. */
export const COLLECTOR_MUTABLE = ['labels', 'displayName', 'description', 'serviceAccount', 'expectedAssetCount', 'collectionDays', 'eulaUri'] as const;
export type CollectorMutableField = (typeof COLLECTOR_MUTABLE)[number];
/** Fields the server sets; ignored in request bodies, refused in update masks. */
export const COLLECTOR_OUTPUT_ONLY = ['name', 'createTime', 'updateTime', 'bucket', 'state', 'clientVersion', 'guestOsScan', 'vsphereScan'] as const;

/**
 * `local@domain.tld` in one pass: one `@`, no white space, something before it, and a dot inside the
 * domain part. (The regular expression this replaces backtracked quadratically on long input.)
 */
export function isEmailAddress(s: string): boolean {
  const at = s.indexOf('@');
  if (at < 1 || s.indexOf('@', at + 1) >= 0 || /\s/.test(s)) return false;
  return s.slice(at + 2, -1).includes('.');
}

/** A Collector in a create or update body: mutable fields checked, output-only ones accepted and ignored. */
export const collectorBody = z.strictObject({
  name: opt(z.string()),
  createTime: opt(timestampText),
  updateTime: opt(timestampText),
  labels: opt(labels),
  displayName: opt(z.string().max(256, 'at most 256 characters')),
  description: opt(z.string().max(2048, 'at most 2048 characters')),
  serviceAccount: opt(z.string().max(254).refine((s) => s === '' || isEmailAddress(s), 'must be a service account e-mail address')),
  bucket: opt(z.string()),
  expectedAssetCount: opt(int64),
  state: opt(enumOf(CollectorState)),
  clientVersion: opt(z.string()),
  guestOsScan: opt(coreSource),
  vsphereScan: opt(coreSource),
  collectionDays: opt(int32),
  eulaUri: opt(z.string().max(2048, 'at most 2048 characters')),
});
export type CollectorBody = z.output<typeof collectorBody>;

/** The mutable part of a collector body. */
export function mutableOf(body: CollectorBody): Partial<Pick<Collector, CollectorMutableField>> {
  return compact({
    labels: body.labels,
    displayName: body.displayName,
    description: body.description,
    serviceAccount: body.serviceAccount,
    expectedAssetCount: body.expectedAssetCount,
    collectionDays: body.collectionDays,
    eulaUri: body.eulaUri,
  });
}

export const annotationBody = z.strictObject({
  name: opt(z.string()),
  createTime: opt(timestampText),
  updateTime: opt(timestampText),
  labels: opt(labels),
  type: opt(enumOf(AnnotationType)),
});
export type AnnotationBody = z.output<typeof annotationBody>;

/** Body of pause, resume and register (`body: "*"` minus the name). */
export const collectorActionBody = z.strictObject({ requestId: opt(z.string()) });
/** Body of CancelOperation (`body: "*"`): nothing besides the name. */
export const cancelBody = z.strictObject({});
