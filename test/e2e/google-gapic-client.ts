/**
 * The GAPIC REST client of Rapid Migration Assessment v1, rebuilt from google-gax (the `fallback`
 * transport, as `@google-cloud/rapidmigrationassessment` 2.x uses it with google-gax 5) and the
 * service's protos, because the generated package is not on the npm registry this project can reach
 * (spec §4.1 (b), §5). The proto below is written from the API's published surface: messages, enums
 * and `google.api.http` bindings. Field numbers do not matter to the JSON REST transport.
 *
 * It wires the pieces the way a generated client does: `numericEnums` (so every service call carries
 * `$alt=json;enum-encoding=int`), LRO descriptors whose operations are polled through the Operations
 * mixin's own HTTP rules, a page descriptor for ListCollectors, and routing headers.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as gax from 'google-gax';

/** google-gax's own JSON of google.longrunning, google.rpc and google.api (the Operation type and the http option). */
const operationsJson = JSON.parse(
  readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('google-gax')), '..', 'protos', 'operations.json'), 'utf8'),
) as { nested: Record<string, gax.protobuf.AnyNestedObject> };

const SERVICE = 'google.cloud.rapidmigrationassessment.v1.RapidMigrationAssessment';
const PKG = 'google.cloud.rapidmigrationassessment.v1';

const WELL_KNOWN = `
syntax = "proto3";
package google.protobuf;
message Timestamp { int64 seconds = 1; int32 nanos = 2; }
message FieldMask { repeated string paths = 1; }
`;

const RMA = `
syntax = "proto3";
package ${PKG};

service RapidMigrationAssessment {
  rpc CreateCollector(CreateCollectorRequest) returns (google.longrunning.Operation) {
    option (google.api.http) = { post: "/v1/{parent=projects/*/locations/*}/collectors" body: "collector" };
  }
  rpc CreateAnnotation(CreateAnnotationRequest) returns (google.longrunning.Operation) {
    option (google.api.http) = { post: "/v1/{parent=projects/*/locations/*}/annotations" body: "annotation" };
  }
  rpc GetAnnotation(GetAnnotationRequest) returns (Annotation) {
    option (google.api.http) = { get: "/v1/{name=projects/*/locations/*/annotations/*}" };
  }
  rpc ListCollectors(ListCollectorsRequest) returns (ListCollectorsResponse) {
    option (google.api.http) = { get: "/v1/{parent=projects/*/locations/*}/collectors" };
  }
  rpc GetCollector(GetCollectorRequest) returns (Collector) {
    option (google.api.http) = { get: "/v1/{name=projects/*/locations/*/collectors/*}" };
  }
  rpc UpdateCollector(UpdateCollectorRequest) returns (google.longrunning.Operation) {
    option (google.api.http) = { patch: "/v1/{collector.name=projects/*/locations/*/collectors/*}" body: "collector" };
  }
  rpc DeleteCollector(DeleteCollectorRequest) returns (google.longrunning.Operation) {
    option (google.api.http) = { delete: "/v1/{name=projects/*/locations/*/collectors/*}" };
  }
  rpc ResumeCollector(ResumeCollectorRequest) returns (google.longrunning.Operation) {
    option (google.api.http) = { post: "/v1/{name=projects/*/locations/*/collectors/*}:resume" body: "*" };
  }
  rpc RegisterCollector(RegisterCollectorRequest) returns (google.longrunning.Operation) {
    option (google.api.http) = { post: "/v1/{name=projects/*/locations/*/collectors/*}:register" body: "*" };
  }
  rpc PauseCollector(PauseCollectorRequest) returns (google.longrunning.Operation) {
    option (google.api.http) = { post: "/v1/{name=projects/*/locations/*/collectors/*}:pause" body: "*" };
  }
}

message GuestOsScan { string core_source = 1; }
message VSphereScan { string core_source = 1; }

message Collector {
  enum State {
    STATE_UNSPECIFIED = 0; STATE_INITIALIZING = 1; STATE_READY_TO_USE = 2; STATE_REGISTERED = 3;
    STATE_ACTIVE = 4; STATE_PAUSED = 5; STATE_DELETING = 6; STATE_DECOMMISSIONED = 7; STATE_ERROR = 8;
  }
  string name = 1;
  google.protobuf.Timestamp create_time = 2;
  google.protobuf.Timestamp update_time = 3;
  map<string, string> labels = 4;
  string display_name = 5;
  string description = 6;
  string service_account = 7;
  string bucket = 8;
  int64 expected_asset_count = 9;
  State state = 10;
  string client_version = 11;
  GuestOsScan guest_os_scan = 12;
  VSphereScan vsphere_scan = 13;
  int32 collection_days = 14;
  string eula_uri = 15;
}

message Annotation {
  enum Type { TYPE_UNSPECIFIED = 0; TYPE_LEGACY_EXPORT_CONSENT = 1; TYPE_QWIKLAB = 2; }
  string name = 1;
  google.protobuf.Timestamp create_time = 2;
  google.protobuf.Timestamp update_time = 3;
  map<string, string> labels = 4;
  Type type = 5;
}

message OperationMetadata {
  google.protobuf.Timestamp create_time = 1;
  google.protobuf.Timestamp end_time = 2;
  string target = 3;
  string verb = 4;
  string status_message = 5;
  bool requested_cancellation = 6;
  string api_version = 7;
}

message CreateCollectorRequest { string parent = 1; string collector_id = 2; Collector collector = 3; string request_id = 4; }
message CreateAnnotationRequest { string parent = 1; Annotation annotation = 2; string request_id = 4; }
message GetAnnotationRequest { string name = 1; }
message ListCollectorsRequest { string parent = 1; int32 page_size = 2; string page_token = 3; string filter = 4; string order_by = 5; }
message ListCollectorsResponse { repeated Collector collectors = 1; string next_page_token = 2; repeated string unreachable = 3; }
message GetCollectorRequest { string name = 1; }
message DeleteCollectorRequest { string name = 1; string request_id = 2; }
message UpdateCollectorRequest { google.protobuf.FieldMask update_mask = 1; Collector collector = 2; string request_id = 3; }
message ResumeCollectorRequest { string name = 1; string request_id = 2; }
message RegisterCollectorRequest { string name = 1; string request_id = 2; }
message PauseCollectorRequest { string name = 1; string request_id = 2; }
`;

/** The Operations and Locations mixins' HTTP rules, as the generated client passes them to the LRO client. */
const MIXIN_RULES = [
  { selector: 'google.cloud.location.Locations.GetLocation', get: '/v1/{name=projects/*/locations/*}' },
  { selector: 'google.cloud.location.Locations.ListLocations', get: '/v1/{name=projects/*}/locations' },
  { selector: 'google.longrunning.Operations.CancelOperation', post: '/v1/{name=projects/*/locations/*/operations/*}:cancel', body: '*' },
  { selector: 'google.longrunning.Operations.DeleteOperation', delete: '/v1/{name=projects/*/locations/*/operations/*}' },
  { selector: 'google.longrunning.Operations.GetOperation', get: '/v1/{name=projects/*/locations/*/operations/*}' },
  { selector: 'google.longrunning.Operations.ListOperations', get: '/v1/{name=projects/*/locations/*}/operations' },
];

const LRO_METHODS = ['createCollector', 'createAnnotation', 'updateCollector', 'deleteCollector', 'resumeCollector', 'registerCollector', 'pauseCollector'];
const ALL_METHODS = [...LRO_METHODS, 'getAnnotation', 'listCollectors', 'getCollector'];
const pascal = (s: string) => s[0]!.toUpperCase() + s.slice(1);

export interface GapicClient {
  /** Calls a service method as the generated client does; `routing` becomes `x-goog-request-params`. */
  call(method: string, request: Record<string, unknown>, routing: Record<string, string>): Promise<any[]>;
  operationsClient: gax.OperationsClient;
  locationsClient: gax.LocationsClient;
  close(): Promise<void>;
}

export function gapicClient(opts: { host: string; port: number; token: string }): GapicClient {
  const root = new gax.protobuf.Root();
  root.addJSON(operationsJson.nested);
  gax.protobuf.parse(WELL_KNOWN, root, { keepCase: false });
  gax.protobuf.parse(RMA, root, { keepCase: false });
  const json = root.toJSON() as gax.protobuf.INamespace;

  const authClient = new gax.googleAuthLibrary.OAuth2Client();
  // No expiry: never refreshed, no network.
  authClient.setCredentials({ access_token: opts.token });
  const options = {
    servicePath: opts.host,
    apiEndpoint: opts.host,
    port: opts.port,
    protocol: 'http',
    fallback: true,
    numericEnums: true,
    authClient,
    clientConfig: {},
  };
  const g = gax.fallback;
  const grpc = new g.GrpcClient(options);
  const protos = grpc.loadProtoJSON(json, true);
  const protoRoot = g.GrpcClient.protobufFromJSON(json, true);
  const operationsClient = g.lro({ auth: grpc.auth, protoJson: protoRoot, httpRules: MIXIN_RULES } as gax.GrpcClientOptions).operationsClient(options);
  const locationsClient = new g.LocationsClient(grpc, options);

  const collector = protoRoot.lookupType(`.${PKG}.Collector`);
  const annotation = protoRoot.lookupType(`.${PKG}.Annotation`);
  const metadata = protoRoot.lookupType(`.${PKG}.OperationMetadata`);
  const descriptors: Record<string, gax.LongrunningDescriptor | gax.PageDescriptor> = {
    listCollectors: new g.PageDescriptor('pageToken', 'nextPageToken', 'collectors'),
  };
  for (const m of LRO_METHODS) {
    const response = m === 'createAnnotation' ? annotation : collector;
    descriptors[m] = new g.LongrunningDescriptor(operationsClient, response.decode.bind(response), metadata.decode.bind(metadata));
  }

  const methods = Object.fromEntries(ALL_METHODS.map((m) => [pascal(m), { timeout_millis: 60_000, retry_codes_name: 'non_idempotent', retry_params_name: 'default' }]));
  const clientConfig = {
    interfaces: {
      [SERVICE]: {
        retry_codes: { non_idempotent: [], idempotent: ['DEADLINE_EXCEEDED', 'UNAVAILABLE'] },
        retry_params: {
          default: {
            initial_retry_delay_millis: 100,
            retry_delay_multiplier: 1.3,
            max_retry_delay_millis: 60_000,
            initial_rpc_timeout_millis: 60_000,
            rpc_timeout_multiplier: 1,
            max_rpc_timeout_millis: 60_000,
            total_timeout_millis: 600_000,
          },
        },
        methods,
      },
    },
  };
  const defaults = grpc.constructSettings(SERVICE, clientConfig, {}, {
    'x-goog-api-client': `gax/${g.version} gapic/0.0.0-local gl-node/${process.versions.node} rest/${grpc.grpcVersion}`,
  });
  const stub = grpc.createStub(protos.lookupService(SERVICE), options as gax.ClientStubOptions, true);
  const calls: Record<string, (req: unknown, o?: unknown) => Promise<any[]>> = {};
  for (const m of ALL_METHODS) {
    const callPromise = stub.then((s) => (...args: unknown[]) => (s as unknown as Record<string, (...a: unknown[]) => unknown>)[m]!.apply(s, args));
    calls[m] = g.createApiCall(callPromise as never, defaults[m], descriptors[m], undefined) as never;
  }

  return {
    call: (method, request, routing) =>
      calls[method]!(request, { otherArgs: { headers: { 'x-goog-request-params': gax.routingHeader.fromParams(routing) } } }),
    operationsClient,
    locationsClient,
    close: async () => {
      operationsClient.close();
    },
  };
}
