/** Calls an HTTP Lambda handler in-process with an API Gateway HTTP API (payload 2.0) event. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

export interface FakeRequest {
  method?: string;
  path: string;
  query?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  pathParameters?: Record<string, string>;
}

export function httpEvent(req: FakeRequest): APIGatewayProxyEventV2 {
  const method = req.method ?? 'GET';
  const isBinary = Buffer.isBuffer(req.body);
  return {
    version: '2.0',
    routeKey: `${method} ${req.path}`,
    rawPath: req.path,
    rawQueryString: req.query ?? '',
    headers: { host: 'localhost:4000', ...req.headers },
    queryStringParameters: req.query ? Object.fromEntries(new URLSearchParams(req.query)) : undefined,
    pathParameters: req.pathParameters,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path: req.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: randomUUID(),
      routeKey: `${method} ${req.path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: req.body === undefined ? undefined : isBinary ? (req.body as Buffer).toString('base64') : (req.body as string),
    isBase64Encoded: isBinary,
  };
}

export function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:test',
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: 'test',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => 29_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export async function call(handler: Handler, req: FakeRequest) {
  const res = await handler(httpEvent(req), lambdaContext());
  const text = res.isBase64Encoded ? Buffer.from(res.body ?? '', 'base64').toString('utf8') : (res.body ?? '');
  const headers = Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode ?? 200, headers, text, json };
}
