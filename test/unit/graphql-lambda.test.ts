import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createCreatureYoga } from '#lib/graphql/creatures/yoga.js';
import { createLogger } from '#lib/kernel/log.js';
import type { StateStore } from '#lib/adapters/state/port.js';
import { GRAPHIQL_ASSET_VERSION } from '#lib/graphql/server/graphiql-assets.js';
import { lambdaHandler, type FetchServer, type LambdaServerContext } from '#lib/graphql/server/lambda.js';

/** Creature queries never touch the store; this one fails loudly if anything does. */
const noStore = new Proxy({} as StateStore, {
  get: () => () => Promise.reject(new Error('the store must not be used here')),
});
const yoga = createCreatureYoga({ store: noStore, logger: createLogger({}, { level: 'silent' }) });
const handler = lambdaHandler(yoga);
const lambdaContext = {} as Context;

function event(overrides: Partial<APIGatewayProxyEventV2> & { method?: string } = {}): APIGatewayProxyEventV2 {
  const { method = 'GET', ...rest } = overrides;
  return {
    version: '2.0',
    routeKey: `${method} /graphql`,
    rawPath: '/graphql',
    rawQueryString: '',
    headers: { host: 'api.example.test' },
    requestContext: {
      accountId: 'a',
      apiId: 'b',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path: '/graphql', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'r',
      routeKey: `${method} /graphql`,
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
    ...rest,
  };
}

describe('the Lambda handler (HTTP API payload 2.0)', () => {
  it('answers a JSON POST, also when the gateway delivers the body base64-encoded', async () => {
    const body = JSON.stringify({ query: '{ creatures { name } }' });
    for (const [payload, isBase64Encoded] of [[body, false], [Buffer.from(body).toString('base64'), true]] as const) {
      const res = await handler(
        event({ method: 'POST', headers: { host: 'h', 'content-type': 'application/json' }, body: payload, isBase64Encoded }),
        lambdaContext,
      );
      expect(res.statusCode).toBe(200);
      expect(res.isBase64Encoded).toBe(false);
      expect(res.headers?.['content-type']).toMatch(/^application\/(graphql-response\+)?json/);
      expect(JSON.parse(res.body as string).data.creatures).toHaveLength(150);
    }
  });

  it('runs a GET query from the query string', async () => {
    const res = await handler(
      event({
        rawQueryString: `query=${encodeURIComponent('{ creature(name: "cindlet") { number } }')}`,
        headers: { host: 'h', 'x-graphql-yoga-csrf': '1' },
      }),
      lambdaContext,
    );
    expect(JSON.parse(res.body as string)).toEqual({ data: { creature: { number: '001' } } });
  });

  it('passes method, headers, cookies and body through, and returns set-cookie as cookies', async () => {
    let seen: Request | undefined;
    const stub: FetchServer<LambdaServerContext> = {
      fetch: (input, init) => {
        seen = new Request(input, init);
        const headers = new Headers({ 'content-type': 'text/plain' });
        headers.append('set-cookie', 'a=1');
        headers.append('set-cookie', 'b=2');
        return new Response('ok', { status: 201, headers });
      },
    };
    const res = await lambdaHandler(stub)(
      event({ method: 'PUT', rawPath: '/x', rawQueryString: 'q=1', headers: { host: 'h', 'x-y': 'z' }, cookies: ['c=3', 'd=4'], body: 'hi' }),
      lambdaContext,
    );
    expect(seen?.method).toBe('PUT');
    expect(seen?.url).toBe('https://h/x?q=1');
    expect(seen?.headers.get('x-y')).toBe('z');
    expect(seen?.headers.get('cookie')).toBe('c=3; d=4');
    expect(await seen?.text()).toBe('hi');
    expect(res).toMatchObject({ statusCode: 201, body: 'ok', isBase64Encoded: false, cookies: ['a=1', 'b=2'] });
  });
});

describe('the offline explorer', () => {
  it('serves a GraphiQL page on GET with accept: text/html that loads nothing from the internet', async () => {
    const res = await handler(event({ headers: { host: 'h', accept: 'text/html,application/xhtml+xml' } }), lambdaContext);
    expect(res.statusCode).toBe(200);
    expect(res.headers?.['content-type']).toMatch(/^text\/html/);
    const html = res.body as string;
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    for (const file of ['graphiql.js', 'graphiql.css']) expect(html).toContain(`/graphql/assets/${file}?v=${GRAPHIQL_ASSET_VERSION}`);
    expect(html).toContain('query FirstCreatures');
    expect(html.length).toBeLessThan(20_000);
  });

  it('leaves the assets to their own function: the GraphQL handler does not serve them', async () => {
    const res = await handler(
      event({ rawPath: '/graphql/assets/graphiql.js', rawQueryString: `v=${GRAPHIQL_ASSET_VERSION}`, headers: { host: 'h', 'accept-encoding': 'br' } }),
      lambdaContext,
    );
    expect(res.statusCode).toBe(404);
    expect(String(res.body)).not.toContain('renderYogaGraphiQL');
  });
});
