/**
 * A plain `node:http` server that turns each request into an API Gateway HTTP API (payload 2.0)
 * event, calls a Lambda handler and writes its result back: the same path a request takes through
 * API Gateway, without the Serverless CLI. Listens on a free port.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

export type HttpApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function toHttpApiEvent(req: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const method = req.method ?? 'GET';
  const now = new Date();
  return {
    version: '2.0',
    routeKey: `${method} ${url.pathname}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: req.headers.cookie ? req.headers.cookie.split(/;\s*/) : undefined,
    headers,
    queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: `${method} ${url.pathname}`,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: body.length ? body.toString('base64') : undefined,
    isBase64Encoded: body.length > 0,
  };
}

const lambdaContext = (): Context =>
  ({
    functionName: 'graphql',
    awsRequestId: randomUUID(),
    getRemainingTimeInMillis: () => 30_000,
  }) as unknown as Context;

export async function startLambdaHttpServer(handler: HttpApiHandler): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const result = await handler(toHttpApiEvent(req, await readBody(req)), lambdaContext());
        const headers: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
        if (result.cookies?.length) headers['set-cookie'] = result.cookies;
        const body = result.body === undefined ? '' : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
        res.writeHead(result.statusCode ?? 200, headers);
        res.end(body);
      } catch (err) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`handler failed: ${String(err)}`);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
