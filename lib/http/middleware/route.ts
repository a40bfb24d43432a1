/**
 * A route: one HTTP endpoint as a Lambda handler. Every route is the same steps, in the same order:
 * build the request (ids, headers, query), render errors in the API family's format, authenticate,
 * parse the body, validate, run the core, serialize. The core is a plain typed function.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod';
import { config } from '../../kernel/config.js';
import { rootLogger } from '../../kernel/root-logger.js';
import { requestContext, type RouteContext } from './context.js';
import { renderErrors, type ErrorRenderer } from './errors.js';
import { jsonBody } from './json-body.js';
import { validate } from './validate.js';
import type { HttpRequest, HttpResponse } from '../types.js';

export interface RouteSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
}

type Out<S, K extends keyof RouteSchemas, Fallback> = S extends Record<K, infer T extends z.ZodType> ? z.output<T> : Fallback;

export type RequestOf<S extends RouteSchemas> = HttpRequest<
  Out<S, 'body', unknown>,
  Out<S, 'query', Record<string, string>>,
  Out<S, 'params', Record<string, string>>
>;

export type Core<S extends RouteSchemas> = (req: RequestOf<S>) => Promise<HttpResponse>;

export interface RouteOptions<S extends RouteSchemas> {
  render: ErrorRenderer;
  schemas?: S;
  /** `json`: a JSON body is parsed (optional unless `bodyRequired`); `raw`: left as bytes; `none`. */
  body?: 'json' | 'raw' | 'none';
  bodyRequired?: boolean;
  /** Authentication and other per-family middlewares, run before body parsing. */
  guards?: Array<MiddlewareObj<any, any, Error, RouteContext>>;
}

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export function route<S extends RouteSchemas>(opts: RouteOptions<S>, core: Core<S>): LambdaHandler {
  const chain = middy<APIGatewayProxyEventV2, any, Error, RouteContext>(async (_event: APIGatewayProxyEventV2, context: RouteContext) =>
    core(context.http as RequestOf<S>),
  )
    .use(renderErrors(opts.render))
    .use(
      requestContext({
        log: rootLogger,
        publicBaseUrl: () => config().PUBLIC_BASE_URL,
      }),
    );
  for (const guard of opts.guards ?? []) chain.use(guard);
  if ((opts.body ?? 'json') === 'json') {
    chain.use(jsonBody({ maxBytes: () => config().MAX_BODY_BYTES, optional: !opts.bodyRequired }));
  }
  if (opts.schemas) chain.use(validate(opts.schemas));
  return chain as unknown as LambdaHandler;
}
