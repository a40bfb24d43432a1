import type { MiddlewareObj } from '@middy/core';
import type * as z from 'zod';
import { ApiError } from '../../kernel/errors.js';
import type { RouteContext, RouteRequest } from './context.js';

export interface Schemas {
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
}

/** Turns zod issues into a map of dotted field path → messages. */
export function fieldErrors(error: z.ZodError, prefix?: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || prefix || 'body';
    (out[path] ??= []).push(issue.message);
  }
  return out;
}

/**
 * Validates the parts of the request that have a schema and replaces them with the parsed values
 * (defaults applied). Any problem is one INVALID_ARGUMENT error listing every offending field.
 */
export function validate(schemas: Schemas): MiddlewareObj<any, any, Error, RouteContext> {
  return {
    before(request: RouteRequest) {
      const http = request.context.http;
      const fields: Record<string, string[]> = {};
      for (const part of ['params', 'query', 'body'] as const) {
        const schema = schemas[part];
        if (!schema) continue;
        const result = schema.safeParse(http[part]);
        if (result.success) (http as unknown as Record<string, unknown>)[part] = result.data;
        else Object.assign(fields, fieldErrors(result.error, part === 'body' ? undefined : part));
      }
      if (Object.keys(fields).length) throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields });
    },
  };
}
