/**
 * The response message types of Rapid Migration Assessment v1 and its Locations and Operations
 * mixins, as far as a partial response (`fields`, `X-Goog-FieldMask`) looks into them: a selection
 * is checked against these, so that a field of the message is accepted even when the answer leaves
 * it out (unset, or `Location.metadata`, never sent). A unit test holds their field names to the
 * googleapis discovery types.
 */
import { anyField, mapOf, message, OPEN, SCALAR } from '../fields.js';
import { PACKAGE } from './model.js';

const scan = (name: string) => message(`${PACKAGE}.${name}`, { coreSource: SCALAR });

export const COLLECTOR = message(`${PACKAGE}.Collector`, {
  name: SCALAR,
  createTime: SCALAR,
  updateTime: SCALAR,
  labels: mapOf(SCALAR),
  displayName: SCALAR,
  description: SCALAR,
  serviceAccount: SCALAR,
  bucket: SCALAR,
  expectedAssetCount: SCALAR,
  state: SCALAR,
  clientVersion: SCALAR,
  guestOsScan: scan('GuestOsScan'),
  vsphereScan: scan('VSphereScan'),
  collectionDays: SCALAR,
  eulaUri: SCALAR,
});

export const ANNOTATION = message(`${PACKAGE}.Annotation`, {
  name: SCALAR,
  createTime: SCALAR,
  updateTime: SCALAR,
  labels: mapOf(SCALAR),
  type: SCALAR,
});

export const LOCATION = message('google.cloud.location.Location', {
  name: SCALAR,
  locationId: SCALAR,
  displayName: SCALAR,
  labels: mapOf(SCALAR),
  // An Any with no published type here.
  metadata: OPEN,
});

export const OPERATION_METADATA = message(`${PACKAGE}.OperationMetadata`, {
  createTime: SCALAR,
  endTime: SCALAR,
  target: SCALAR,
  verb: SCALAR,
  statusMessage: SCALAR,
  requestedCancellation: SCALAR,
  apiVersion: SCALAR,
});

export const STATUS = message('google.rpc.Status', { code: SCALAR, message: SCALAR, details: OPEN });

/** Every operation of the API: its response is a Collector or (CreateAnnotation) an Annotation. */
export const OPERATION = message('google.longrunning.Operation', {
  name: SCALAR,
  metadata: anyField(OPERATION_METADATA),
  done: SCALAR,
  error: STATUS,
  response: anyField(COLLECTOR, ANNOTATION),
});

export const LIST_COLLECTORS = message(`${PACKAGE}.ListCollectorsResponse`, { collectors: COLLECTOR, nextPageToken: SCALAR, unreachable: SCALAR });
export const LIST_LOCATIONS = message('google.cloud.location.ListLocationsResponse', { locations: LOCATION, nextPageToken: SCALAR });
export const LIST_OPERATIONS = message('google.longrunning.ListOperationsResponse', { operations: OPERATION, nextPageToken: SCALAR, unreachable: SCALAR });
export const EMPTY = message('google.protobuf.Empty', {});
