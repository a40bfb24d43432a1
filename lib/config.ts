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

  /**
   * Authentication of the Google-dialect APIs (label limits, migration assessment). `open`: any bearer
   * token or none is accepted (the local default: Google's clients always send some token). `enforced`:
   * the token (or `key`/`access_token` parameter) must be an API key of this service holding one of the
   * method's OAuth scopes (`npm run keys -- create --scopes cloud-platform,drive.labels`).
   */
  GOOGLE_AUTH_MODE: z.enum(['open', 'enforced']).default('open'),
  /** List methods of the Google APIs: page size when `pageSize` is 0 or absent, and the largest one served. */
  GOOGLE_DEFAULT_PAGE_SIZE: z.coerce.number().int().positive().default(50),
  GOOGLE_MAX_PAGE_SIZE: z.coerce.number().int().positive().default(1000),
  /** Migration assessment: the location ids served under every project (comma-separated). */
  MIGRATION_LOCATIONS: z
    .string()
    .default('us-central1,us-east1,europe-west1,asia-southeast1')
    .transform((s) => [...new Set(s.split(',').map((l) => l.trim()).filter(Boolean))])
    .pipe(z.array(z.string().regex(/^[a-z][a-z0-9-]{0,61}[a-z0-9]$/, 'location ids are lower-case letters, digits and hyphens')).min(1)),
  /** Seconds a deleted collector stays in STATE_DELETING before it is gone (its delete operation then completes). */
  MIGRATION_DELETE_GRACE_SECONDS: z.coerce.number().int().nonnegative().default(3),
  /** Seconds before the other long-running operations (create, update, register, pause, resume) complete. */
  MIGRATION_OPERATION_DELAY_SECONDS: z.coerce.number().int().nonnegative().max(900).default(0),
  /** How long a `requestId` is remembered (AIP-155 asks for at least 60 minutes). */
  MIGRATION_REQUEST_ID_TTL_SECONDS: z.coerce.number().int().positive().default(3600),
  /** Days a finished long-running operation is kept before it expires. */
  MIGRATION_OPERATION_RETENTION_DAYS: z.coerce.number().int().positive().default(30),

  /** Largest file an import/upload form accepts, bytes. */
  MAX_UPLOAD_BYTES: z.coerce.number().int().positive().default(10_000_000_000),
  /** How long a step consumer's claim on a task lasts without renewal (renewed every third of it). */
  STEP_LEASE_SECONDS: z.coerce.number().int().min(3).max(900).default(30),
  /** The longest a wait endpoint blocks before answering with the current state (below the gateway's 30 s). */
  SYNC_MAX_WAIT_SECONDS: z.coerce.number().positive().max(28).default(25),

  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Allows user-requested fetches to loopback addresses. Tests only; never in the cloud. */
  ALLOW_LOOPBACK_FETCH: bool.default(false),
  /** Exact `host:port` pairs user-requested fetches may reach although their address is private (tests). */
  FETCH_ALLOW_HOSTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),
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
