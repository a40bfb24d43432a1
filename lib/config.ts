/**
 * Configuration: read from the environment once, at cold start, validated with one schema.
 * Nothing else in the code base reads `process.env`; adapters get what they need through their
 * constructors. A missing or malformed setting fails the cold start with the name of the setting.
 */
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const optionalUrl = z.string().url().optional().or(z.literal('').transform(() => undefined));

const schema = z.object({
  SERVICE_NAME: z.string().default('api-platform'),
  STAGE: z.string().default('dev'),
  AWS_REGION: z.string().default('us-east-1'),

  /** The DynamoDB table for all state. */
  STATE_TABLE: z.string().min(1),
  /** The S3 bucket for task files. */
  FILES_BUCKET: z.string().min(1),
  /** Queue names, one per consumer kind. */
  IMPORT_QUEUE: z.string().min(1),
  PROCESS_QUEUE: z.string().min(1),
  EXPORT_QUEUE: z.string().min(1),
  OPERATIONS_QUEUE: z.string().min(1),
  WEBHOOKS_QUEUE: z.string().min(1),

  /** Endpoints of local stand-ins (unset in the cloud). The AWS SDK names. */
  AWS_ENDPOINT_URL_DYNAMODB: optionalUrl,
  AWS_ENDPOINT_URL_S3: optionalUrl,
  AWS_ENDPOINT_URL_SQS: optionalUrl,

  /** Public base URL for `links.self`; when unset it is derived from each request's host. */
  PUBLIC_BASE_URL: optionalUrl,

  /** Job and task creations allowed per API key per window. */
  RATE_LIMIT: z.coerce.number().int().positive().default(600),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  /** Largest JSON request body accepted, in bytes. */
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(1_048_576),

  /** The account that API keys belong to, as `GET /v2/users/me` reports it. */
  ACCOUNT_USERNAME: z.string().min(1).default('local'),
  ACCOUNT_EMAIL: z.string().email().default('local@example.com'),
  /** Credits a new account starts with; operations spend them. */
  ACCOUNT_CREDITS: z.coerce.number().int().nonnegative().default(1_000_000),

  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Allows user-requested fetches to loopback addresses. Tests only; never in the cloud. */
  ALLOW_LOOPBACK_FETCH: bool.default(false),
});

export type Config = z.infer<typeof schema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration, set these environment variables: ${problems}`);
  }
  return result.data;
}

let cached: Config | undefined;

/** The configuration of this process, parsed on first use. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
