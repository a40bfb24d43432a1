/**
 * The 16 methods of Rapid Migration Assessment v1 (with the Locations and Operations mixins), one
 * entry each: RPC name, HTTP binding (google.api.http), and how the request maps onto the service.
 * Path variables fill `name`/`parent`; `body: "<resource>"` methods take the resource as the body and
 * the rest from the query; `body: "*"` methods (pause, resume, register, cancel) read the body.
 */
import { ApiError } from '#lib/kernel/errors.js';
import { googleJson, param, type Wire } from '#lib/google/wire.js';
import type { HttpRule } from '#lib/google/router.js';
import { annotationJson, collectorActionBody, collectorJson, locationJson, operationJson } from '#lib/google/migration/model.js';
import * as M from '#lib/google/migration/messages.js';
import { childName, locationName, projectName } from '#lib/google/migration/names.js';
import type { CollectorAction, MigrationService } from '#lib/google/migration/service.js';
import type { HttpRequest } from '#lib/http/types.js';
import { fieldErrors } from '#lib/http/middleware/validate.js';

export interface MethodContext {
  req: HttpRequest;
  wire: Wire;
  service: MigrationService;
}

const LOCATION = 'v1/projects/*/locations/*';

/** `body: "<resource>"` methods need the resource in the body (it may be `{}`). */
function resourceBody(req: HttpRequest, field: string): unknown {
  if (!req.rawBody || req.rawBody.length === 0) {
    throw new ApiError('INVALID_ARGUMENT', `Missing required field: ${field}.`, { fields: { [field]: [`required; send the ${field} as the JSON request body`] } });
  }
  return req.body;
}

/** The requestId of a `body: "*"` method: in the body, as GAPIC and discovery clients send it (the query is accepted too). */
function actionRequestId(req: HttpRequest): string | undefined {
  const body = req.body ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError('INVALID_ARGUMENT', 'Invalid JSON payload: the request body must be a JSON object.', { fields: { body: ['must be a JSON object'] } });
  }
  const parsed = collectorActionBody.safeParse(body);
  if (!parsed.success) throw new ApiError('INVALID_ARGUMENT', 'Invalid JSON payload received.', { fields: fieldErrors(parsed.error) });
  return parsed.data.requestId ?? param(req.searchParams, 'requestId');
}

const collectorAction =
  (action: CollectorAction): HttpRule<MethodContext>['run'] =>
  async ([project = '', location = '', id = ''], { req, wire, service }) => {
    const n = childName('name', project, location, 'collectors', id);
    return googleJson(wire, operationJson(await service.actOnCollector(action, n, actionRequestId(req)), wire.enums));
  };

/** A list response: the items under `field` and the next page's token, each left out when empty. */
function listJson<T>(field: string, page: { items: T[]; nextPageToken?: string }, view: (item: T) => unknown) {
  return {
    ...(page.items.length ? { [field]: page.items.map(view) } : {}),
    ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
  };
}

export const METHODS: ReadonlyArray<HttpRule<MethodContext>> = [
  // google.cloud.location.Locations
  {
    id: 'GetLocation',
    method: 'GET',
    template: LOCATION,
    response: M.LOCATION,
    run: async ([project = '', location = ''], { wire, service }) => googleJson(wire, locationJson(service.getLocation(project, location))),
  },
  {
    id: 'ListLocations',
    method: 'GET',
    template: 'v1/projects/*/locations',
    response: M.LIST_LOCATIONS,
    run: async ([project = ''], { req, wire, service }) => {
      projectName('name', project);
      const page = service.listLocations(project, req.searchParams);
      return googleJson(wire, listJson('locations', page, locationJson));
    },
  },

  // Annotations
  {
    id: 'CreateAnnotation',
    method: 'POST',
    template: `${LOCATION}/annotations`,
    response: M.OPERATION,
    run: async ([project = '', location = ''], { req, wire, service }) => {
      const parent = locationName('parent', project, location);
      const op = await service.createAnnotation(parent, resourceBody(req, 'annotation'), param(req.searchParams, 'requestId'));
      return googleJson(wire, operationJson(op, wire.enums));
    },
  },
  {
    id: 'GetAnnotation',
    method: 'GET',
    template: `${LOCATION}/annotations/*`,
    response: M.ANNOTATION,
    run: async ([project = '', location = '', id = ''], { wire, service }) =>
      googleJson(wire, annotationJson(await service.getAnnotation(childName('name', project, location, 'annotations', id)), wire.enums)),
  },

  // Collectors
  {
    id: 'CreateCollector',
    method: 'POST',
    template: `${LOCATION}/collectors`,
    response: M.OPERATION,
    run: async ([project = '', location = ''], { req, wire, service }) => {
      const parent = locationName('parent', project, location);
      const op = await service.createCollector(
        parent,
        param(req.searchParams, 'collectorId'),
        resourceBody(req, 'collector'),
        param(req.searchParams, 'requestId'),
      );
      return googleJson(wire, operationJson(op, wire.enums));
    },
  },
  {
    id: 'ListCollectors',
    method: 'GET',
    template: `${LOCATION}/collectors`,
    response: M.LIST_COLLECTORS,
    run: async ([project = '', location = ''], { req, wire, service }) => {
      const page = await service.listCollectors(locationName('parent', project, location), req.searchParams);
      return googleJson(wire, listJson('collectors', page, (c) => collectorJson(c, wire.enums)));
    },
  },
  {
    id: 'GetCollector',
    method: 'GET',
    template: `${LOCATION}/collectors/*`,
    response: M.COLLECTOR,
    run: async ([project = '', location = '', id = ''], { wire, service }) =>
      googleJson(wire, collectorJson(await service.getCollector(childName('name', project, location, 'collectors', id)), wire.enums)),
  },
  {
    id: 'UpdateCollector',
    method: 'PATCH',
    template: `${LOCATION}/collectors/*`,
    response: M.OPERATION,
    run: async ([project = '', location = '', id = ''], { req, wire, service }) => {
      const n = childName('collector.name', project, location, 'collectors', id);
      const op = await service.updateCollector(n, resourceBody(req, 'collector'), param(req.searchParams, 'updateMask'), param(req.searchParams, 'requestId'));
      return googleJson(wire, operationJson(op, wire.enums));
    },
  },
  {
    id: 'DeleteCollector',
    method: 'DELETE',
    template: `${LOCATION}/collectors/*`,
    response: M.OPERATION,
    run: async ([project = '', location = '', id = ''], { req, wire, service }) => {
      const op = await service.deleteCollector(childName('name', project, location, 'collectors', id), param(req.searchParams, 'requestId'));
      return googleJson(wire, operationJson(op, wire.enums));
    },
  },
  { id: 'PauseCollector', method: 'POST', template: `${LOCATION}/collectors/*:pause`, response: M.OPERATION, run: collectorAction('pause') },
  { id: 'RegisterCollector', method: 'POST', template: `${LOCATION}/collectors/*:register`, response: M.OPERATION, run: collectorAction('register') },
  { id: 'ResumeCollector', method: 'POST', template: `${LOCATION}/collectors/*:resume`, response: M.OPERATION, run: collectorAction('resume') },

  // google.longrunning.Operations
  {
    id: 'ListOperations',
    method: 'GET',
    template: `${LOCATION}/operations`,
    response: M.LIST_OPERATIONS,
    run: async ([project = '', location = ''], { req, wire, service }) => {
      const page = await service.listOperations(locationName('name', project, location), req.searchParams);
      return googleJson(wire, listJson('operations', page, (op) => operationJson(op, wire.enums)));
    },
  },
  {
    id: 'GetOperation',
    method: 'GET',
    template: `${LOCATION}/operations/*`,
    response: M.OPERATION,
    run: async ([project = '', location = '', id = ''], { wire, service }) =>
      googleJson(wire, operationJson(await service.getOperation(childName('name', project, location, 'operations', id)), wire.enums)),
  },
  {
    id: 'DeleteOperation',
    method: 'DELETE',
    template: `${LOCATION}/operations/*`,
    response: M.EMPTY,
    run: async ([project = '', location = '', id = ''], { wire, service }) => {
      await service.deleteOperation(childName('name', project, location, 'operations', id));
      return googleJson(wire, {});
    },
  },
  {
    id: 'CancelOperation',
    method: 'POST',
    template: `${LOCATION}/operations/*:cancel`,
    response: M.EMPTY,
    run: async ([project = '', location = '', id = ''], { wire, service }) => {
      await service.cancelOperation(childName('name', project, location, 'operations', id));
      return googleJson(wire, {});
    },
  },
];
