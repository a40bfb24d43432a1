/**
 * Resource names of the migration assessment API (AIP-122): checks each id and builds the names.
 * A malformed id is INVALID_ARGUMENT with a field violation on the request field that carried it.
 */
import { ApiError } from '../../kernel/errors.js';

export const PROJECT_ID = /^(?:[a-z0-9][a-z0-9.-]*:)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const LOCATION_ID = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** RFC 1034 labels, as CreateCollector's collectorId. */
export const COLLECTOR_ID = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const ANNOTATION_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const OPERATION_ID = /^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$/;

export interface LocationName {
  project: string;
  location: string;
  /** `projects/{project}/locations/{location}` */
  name: string;
}

export interface ChildName extends LocationName {
  id: string;
  /** The location name. */
  parent: string;
}

export const invalidField = (field: string, message: string) =>
  new ApiError('INVALID_ARGUMENT', `Invalid ${field}: ${message}`, { fields: { [field]: [message] } });

function check(field: string, what: string, value: string, re: RegExp, rule: string) {
  if (!re.test(value)) throw invalidField(field, `"${value}" is not a valid ${what} id; ${rule}`);
}

export function projectName(field: string, project: string): string {
  check(field, 'project', project, PROJECT_ID, 'use lower-case letters, digits and hyphens');
  return `projects/${project}`;
}

export function locationName(field: string, project: string, location: string): LocationName {
  projectName(field, project);
  check(field, 'location', location, LOCATION_ID, 'use lower-case letters, digits and hyphens, e.g. us-central1');
  return { project, location, name: `projects/${project}/locations/${location}` };
}

const childRules = {
  collectors: [COLLECTOR_ID, 'collector', 'start with a lower-case letter, then up to 62 lower-case letters, digits or hyphens, not ending in a hyphen (RFC 1034)'],
  annotations: [ANNOTATION_ID, 'annotation', 'use lower-case letters, digits and hyphens'],
  operations: [OPERATION_ID, 'operation', 'use lower-case letters, digits and hyphens'],
} as const;

export type Collection = keyof typeof childRules;

export function childName(field: string, project: string, location: string, collection: Collection, id: string): ChildName {
  const loc = locationName(field, project, location);
  const [re, what, rule] = childRules[collection];
  check(field, what, id, re, rule);
  return { ...loc, id, parent: loc.name, name: `${loc.name}/${collection}/${id}` };
}

/** Splits a full child name (e.g. an operation's target) back into its parts. */
export function parseChildName(name: string): ChildName | undefined {
  const m = /^projects\/([^/]+)\/locations\/([^/]+)\/(collectors|annotations|operations)\/([^/]+)$/.exec(name);
  if (!m) return undefined;
  return { project: m[1]!, location: m[2]!, id: m[4]!, parent: `projects/${m[1]}/locations/${m[2]}`, name };
}
