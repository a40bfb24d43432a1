/**
 * Configuration: read from the environment once, at cold start, validated with one schema.
 * Nothing else in the code base reads `process.env`; adapters get what they need through their
 * constructors. A missing or malformed setting fails the cold start with the name of the setting.
 */
import * as z from 'zod';
import { AddressTableError, parseAddressTable } from './address-table.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const optionalUrl = z.string().url().optional().or(z.literal('').transform(() => undefined));
const list = z
  .string()
  .default('')
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));
/** An executable: a name looked up on PATH or an absolute path; empty means the default name. */
const executable = (name: string) =>
  z
    .string()
    .default(name)
    .transform((v) => v.trim() || name);

/** First path segments the service serves itself: none of them can name a region. */
const RESERVED_FIRST_SEGMENTS = new Set(['v1', 'v2', 'v2beta', 'sync', 'sandbox', 'graphql', 'oauth', 'account', '.well-known']);

/** The engine families, one process function each in the deployed stack (lib/engines/core/families.ts). */
export const ENGINE_FAMILIES = ['image', 'media', 'pdf', 'chromium', 'office'] as const;

/**
 * The processing engines' settings. Kept apart so that code which only validates requests against
 * the engines (create endpoints, discovery) can read them without the rest (`engineConfig()`).
 */
const engineShape = {
  /**
   * Engine order per operation, where it differs from the built-in one: `operation=engine,engine`
   * entries separated by `;` (e.g. `optimize=qpdf,ghostscript;thumbnail=sharp`). The first engine that
   * is available and supports the format pair runs the task unless the task names an `engine`.
   */
  ENGINE_ORDER: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const order: Record<string, string[]> = {};
      for (const entry of v.split(';').map((e) => e.trim()).filter(Boolean)) {
        const match = /^([a-z0-9/_-]+)\s*=\s*([a-z0-9_,\s-]+)$/i.exec(entry);
        if (!match) {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is not operation=engine,engine` });
          continue;
        }
        order[match[1]!] = match[2]!.split(',').map((e) => e.trim()).filter(Boolean);
      }
      return order;
    }),
  /** Engines to treat as not installed (comma-separated names, e.g. `libreoffice,chrome`). */
  ENGINES_DISABLED: list,
  /**
   * The deployed stack's engine functions, by family (lib/engines/core/families.ts), set at packaging by
   * scripts/serverless-engine-functions.cjs. Set: engines are taken from what those functions ship
   * instead of probing this process's PATH. Empty (locally): probe.
   */
  ENGINE_FUNCTIONS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.enum(ENGINE_FAMILIES))),
  /** The family of the engine function this process is, whose engines it probes and runs (empty elsewhere). */
  ENGINE_FAMILY: z.enum([...ENGINE_FAMILIES, '']).default(''),
  /** A system Chromium for capture-website and HTML conversion (e.g. `/usr/bin/chromium`); it then becomes the default version of the `chrome` engine. Unset: the bundled `@sparticuz/chromium`. */
  CHROMIUM_PATH: z.string().default('').transform((v) => v.trim() || undefined),
  /** The native tools, by name on PATH or by absolute path. A tool that is not found makes its engine "not available". */
  FFMPEG_PATH: executable('ffmpeg'),
  FFPROBE_PATH: executable('ffprobe'),
  GHOSTSCRIPT_PATH: executable('gs'),
  QPDF_PATH: executable('qpdf'),
  SOFFICE_PATH: executable('soffice'),
  /** pandoc (Debian: pandoc), the markup engine; without it Markdown still converts with marked and Chromium (the `markdown` engine). */
  PANDOC_PATH: executable('pandoc'),
  /** calibre's `ebook-convert` (Debian: calibre), the `calibre` engine of ebook conversion. */
  EBOOK_CONVERT_PATH: executable('ebook-convert'),
  /**
   * ImageMagick and GraphicsMagick (`gm`), offered only to the `command` operation, when installed.
   * MAGICK_PATH empty: the first `magick` (ImageMagick 7), else `convert` (ImageMagick 6) on PATH that
   * says it is ImageMagick (lib/engines/command/magick.ts).
   */
  MAGICK_PATH: z.string().default('').transform((v) => v.trim()),
  GM_PATH: executable('gm'),
  /**
   * Tesseract, the OCR engine of `pdf/ocr` (Debian: tesseract-ocr plus a tesseract-ocr-<lang> package
   * per language). Without it, OCR runs on tesseract.js (WebAssembly, languages from
   * @tesseract.js-data packages) when SHIPPED_ENGINES allows.
   */
  TESSERACT_PATH: executable('tesseract'),
  /** exiftool (exiftool-vendored) runs on perl. */
  PERL_PATH: executable('perl'),
  /**
   * Whether a missing system tool falls back to the engine shipped in an npm package (lib/engines/core/shipped.ts):
   * static FFmpeg/ffprobe builds, Ghostscript and qpdf compiled to WebAssembly. `false`: only system tools.
   */
  SHIPPED_ENGINES: bool.default(true),
  /**
   * How the native tools (ffmpeg, ffprobe, Ghostscript, qpdf, LibreOffice, exiftool's perl) are confined
   * (lib/engines/core/confine.ts): `auto` (default) the strongest that works here, bubblewrap, else a network
   * namespace by `unshare`, else none; `bwrap` or `unshare` that one or no native engine at all; `platform`
   * the deployment isolates the function itself (nothing added); `none` an explicit opt-out. LibreOffice
   * runs only under bubblewrap unless this names a level.
   */
  ENGINE_CONFINEMENT: z.enum(['auto', 'bwrap', 'unshare', 'platform', 'none']).default('auto'),
  /** bubblewrap and util-linux's unshare, by name on PATH or by absolute path. */
  BWRAP_PATH: executable('bwrap'),
  UNSHARE_PATH: executable('unshare'),
  /** Where engine calls get their temporary folders (one per call, removed afterwards). Default: the OS temp folder. */
  ENGINE_TMP_DIR: z.string().default(''),
  /** Images whose header declares more pixels than this are refused before decoding. */
  MAX_IMAGE_PIXELS: z.coerce.number().int().positive().default(100_000_000),
  /** PDFs with more pages than this are refused before processing. */
  MAX_PDF_PAGES: z.coerce.number().int().positive().default(2000),
  /** The longest an uploaded PostScript program (eps, ps, ai) may run in Ghostscript, in seconds (lib/engines/pdf/postscript.ts). */
  MAX_POSTSCRIPT_SECONDS: z.coerce.number().int().positive().default(120),
  /** The longest pdf.js may read a PDF's text for pdf → txt, html, docx, odt, in seconds (lib/engines/pdfjs/extract.ts). */
  MAX_PDF_TEXT_SECONDS: z.coerce.number().int().positive().default(120),
  /** The longest one calibre conversion (`ebook-convert`) may run, in seconds (lib/engines/office/calibre.ts). */
  MAX_EBOOK_SECONDS: z.coerce.number().int().positive().default(180),
  /**
   * Warm LibreOffice (lib/engines/office/pool.ts): how many processes convert at once, one conversion each.
   * `auto` (default): one per core, or none in an engine function (ENGINE_FAMILY, ENGINE_REAP: the
   * office Lambda function reaps each task's processes, so a warm one could not outlive its task there);
   * 0: a process per conversion, as without python3-uno. OFFICE_PYTHON_PATH: the Python that has python3-uno's `uno`.
   */
  OFFICE_POOL_SIZE: z.union([z.literal('auto'), z.coerce.number().int().min(0).max(64)]).default('auto'),
  OFFICE_PYTHON_PATH: executable('/usr/bin/python3'),
  /** A warm LibreOffice process is replaced after this many conversions (it grows with what it has opened). */
  OFFICE_MAX_CONVERSIONS: z.coerce.number().int().positive().default(100),
  /** The longest one office conversion may take, in seconds; past it its process is ended and replaced. */
  OFFICE_CONVERSION_SECONDS: z.coerce.number().int().positive().default(120),
  /**
   * Conversions that wait for a busy pool: at most this many, each at most OFFICE_QUEUE_WAIT_SECONDS;
   * beyond that a conversion fails at once with ENGINE_BUSY (retryable) instead of waiting into its timeout.
   */
  OFFICE_QUEUE_LENGTH: z.coerce.number().int().min(0).default(32),
  OFFICE_QUEUE_WAIT_SECONDS: z.coerce.number().int().positive().default(60),
  /** PDFs larger than this (bytes) are refused before they are read. */
  MAX_PDF_BYTES: z.coerce.number().int().positive().default(500_000_000),
  /**
   * Archives (archive/extract, convert from an archive) are listed before anything is extracted and
   * refused past any of these: more entries, more bytes once extracted (also enforced while 7-Zip
   * writes), or an expansion ratio past ARCHIVE_MAX_RATIO (extracted bytes over the archive's, checked
   * from 16 MiB extracted: small files of zeros compress a thousandfold and are no bomb).
   */
  ARCHIVE_MAX_ENTRIES: z.coerce.number().int().positive().default(10_000),
  ARCHIVE_MAX_EXPANDED_BYTES: z.coerce.number().int().positive().default(2 ** 29),
  ARCHIVE_MAX_RATIO: z.coerce.number().positive().default(200),
  /**
   * A processing task whose input files together are larger than this (bytes) is refused with
   * FILE_TOO_LARGE before anything is downloaded: inputs, outputs and the engine's own temporary files
   * share the process function's /tmp. 1 GiB by default, a quarter of the deployed function's 4 GiB.
   */
  ENGINE_MAX_INPUT_BYTES: z.coerce.number().int().positive().default(2 ** 30),
  /**
   * The most one processing task's engine may write (bytes): its outputs and the tools' own files in
   * its work folder together, enforced while the tool runs (lib/engines/core/output-bound.ts: a per-file
   * size limit and a watch of the folder). Past it the task ends with OUTPUT_TOO_LARGE and nothing of it
   * is kept. 512 MiB by default; each deployed engine function takes a quarter of its /tmp. With
   * ENGINE_ISOLATION=function it is also the upload grant's `content-length-range`, and the step checks
   * what the engine function stored against it.
   */
  TASK_MAX_OUTPUT_BYTES: z.coerce.number().int().positive().default(512 * 1024 * 1024),
  /**
   * ExifTool in WebAssembly (where there is no perl) writes metadata into files of up to this many bytes
   * (larger: FILE_TOO_LARGE naming this setting); it reads files of any size, from disk as it goes. A
   * write holds the new file in memory until it is saved (measured: a 225 MB video took 7 s and
   * 560 MB of RSS in all). 256 MiB by default.
   */
  EXIFTOOL_WASM_MAX_WRITE_BYTES: z.coerce.number().int().positive().default(256 * 1024 * 1024),
  /**
   * Fonts (lib/engines/font/): the most bytes a font may be as a whole sfnt file, as read, or as a WOFF or
   * WOFF2 header and table directory declare it unpacked (and a WOFF2's brotli stream); past it the task
   * ends with FILE_TOO_LARGE before anything is decompressed. 30 MiB by default: the WOFF2 decoder's own
   * ceiling, above the largest CJK fonts.
   */
  MAX_FONT_BYTES: z.coerce.number().int().positive().default(30 * 1024 * 1024),
  /**
   * Decompression bombs: a PDF whose compressed streams decode to more than this many bytes (all
   * streams and filter stages together, images included, counted before any parser expands them,
   * nothing kept) is refused with FILE_TOO_LARGE. 1 GiB by default.
   */
  MAX_PDF_DECODED_BYTES: z.coerce.number().int().positive().default(2 ** 30),
  /**
   * The streams parsers expand whole (object, cross-reference and content streams: all but images)
   * may decode to at most this many times the file's size (never less than 16 MiB), so a small file
   * cannot make pdf-lib or qpdf allocate hundreds of megabytes.
   */
  MAX_PDF_DECODED_RATIO: z.coerce.number().positive().default(100),
};

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
  /** The engine families' process queues (lib/engines/core/families.ts); default: PROCESS_QUEUE's name and the family. */
  PROCESS_MEDIA_QUEUE: z.string().default(''),
  PROCESS_PDF_QUEUE: z.string().default(''),
  PROCESS_CHROMIUM_QUEUE: z.string().default(''),
  PROCESS_OFFICE_QUEUE: z.string().default(''),

  /** Endpoints of local stand-ins (unset in the cloud). The AWS SDK names. */
  AWS_ENDPOINT_URL_DYNAMODB: optionalUrl,
  AWS_ENDPOINT_URL_S3: optionalUrl,
  AWS_ENDPOINT_URL_SQS: optionalUrl,
  /** Lambda's endpoint (the local platform's serverless-offline), for the socket connect function's invoke of its hello. */
  AWS_ENDPOINT_URL_LAMBDA: optionalUrl,

  /** Public base URL for `links.self`; when unset it is derived from each request's host. */
  PUBLIC_BASE_URL: optionalUrl,

  /**
   * The processing regions (comma-separated names). Each is reached at its own base, `/{region}/v2` and
   * `/{region}/sync/v2`, the way the official SDKs reach `{region}.api.cloudconvert.com`
   * (docs/using/sandbox-and-regions.md). A name is lower-case letters, digits and hyphens, and none may be a path
   * the service already serves (`sandbox`, `sync`, `v1`, `v2`…).
   */
  REGIONS: z
    .string()
    .default('eu-central,us-east')
    .transform((s) => [...new Set(s.split(',').map((r) => r.trim()).filter(Boolean))])
    .pipe(
      z
        .array(
          z
            .string()
            .regex(/^[a-z][a-z0-9-]{0,30}[a-z0-9]$/, 'region names are lower-case letters, digits and hyphens')
            .refine((r) => !RESERVED_FIRST_SEGMENTS.has(r), 'is a path the service already serves'),
        )
        .min(1),
    ),

  /**
   * Which region the plain base picks from the caller's address (docs/using/sandbox-and-regions.md):
   * comma-separated `range=region`, a range being an IPv4 or IPv6 address with an optional prefix
   * length, e.g. `10.0.0.0/8=us-east,2001:db8::/32=eu-central`. The most specific range holding the
   * address wins. Empty: every caller without a fixed region gets REGION_DEFAULT.
   */
  REGION_ADDRESS_RANGES: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parseAddressTable(v);
      } catch (err) {
        if (!(err instanceof AddressTableError)) throw err;
        ctx.addIssue({ code: 'custom', message: err.message });
        return z.NEVER;
      }
    }),
  /** The region of a caller no range and no fixed region places; empty: the first of REGIONS. */
  REGION_DEFAULT: z.string().default(''),
  /**
   * Each region's files bucket: comma-separated `region=bucket` or `region=bucket@aws-region` (the
   * bucket's AWS region, for a bucket of another stack, e.g. `us-east=api-prod-files-us@us-east-1`). A
   * region without an entry keeps its files in FILES_BUCKET, so a single-region setup needs nothing.
   */
  REGION_BUCKETS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const out: Record<string, { bucket: string; awsRegion?: string }> = {};
      for (const entry of v.split(',').map((e) => e.trim()).filter(Boolean)) {
        const eq = entry.indexOf('=');
        const [bucket = '', awsRegion] = entry.slice(eq + 1).trim().split('@');
        if (eq < 1 || !bucket || awsRegion === '') {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is not region=bucket or region=bucket@aws-region` });
          return z.NEVER;
        }
        out[entry.slice(0, eq).trim()] = { bucket, ...(awsRegion ? { awsRegion } : {}) };
      }
      return out;
    }),

  /** Job and task creations allowed per API key per window. */
  RATE_LIMIT: z.coerce.number().int().positive().default(600),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  /** Live (unrevoked) API keys a user may hold; POST /v2/users/me/api-keys refuses more with 422. */
  MAX_API_KEYS_PER_USER: z.coerce.number().int().positive().max(10_000).default(100),
  /**
   * Largest JSON request body accepted, in bytes: 5 MiB, below Lambda's 6 MB request payload limit,
   * so import/base64 and import/raw carry files of up to about 3.7 MB and 5 MB.
   */
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024),

  /** The account that API keys belong to, as `GET /v2/users/me` reports it. */
  ACCOUNT_USERNAME: z.string().min(1).default('local'),
  ACCOUNT_EMAIL: z.string().email().default('local@example.com'),
  /**
   * The built-in account's balance when it is first used: a number of credits, or `unlimited` (the
   * default: tasks are counted in the usage but never refused). Operators change it afterwards with
   * lib/file-api/account/credits.ts `setCredits`.
   */
  ACCOUNT_CREDITS: z
    .string()
    .default('unlimited')
    .transform((v, ctx): number | 'unlimited' => {
      const value = v.trim().toLowerCase();
      if (value === 'unlimited') return value;
      if (/^\d{1,15}$/.test(value)) return Number(value);
      ctx.addIssue({ code: 'custom', message: 'must be a whole number of credits (0 or more) or unlimited' });
      return z.NEVER;
    }),
  /**
   * Days the usage ledger (credits and tasks per user, day and operation) is kept after its day, long
   * after the tasks themselves (24 hours): at least the longest range `GET /v2/users/me/usage` answers.
   */
  USAGE_RETENTION_DAYS: z.coerce.number().int().min(366).default(400),

  /**
   * OAuth 2.0 (lib/access/oauth): how long an authorization code can be exchanged, and how long access and
   * refresh tokens live, in seconds. A refresh token is replaced by a new one at each use (rotation).
   */
  OAUTH_CODE_SECONDS: z.coerce.number().int().positive().max(600).default(60),
  OAUTH_ACCESS_TOKEN_SECONDS: z.coerce.number().int().positive().max(7 * 24 * 3600).default(3600),
  OAUTH_REFRESH_TOKEN_SECONDS: z.coerce.number().int().positive().max(365 * 24 * 3600).default(30 * 24 * 3600),
  /** How long a browser stays signed in to the sign-in, consent and account pages, in seconds. */
  SESSION_SECONDS: z.coerce.number().int().positive().max(30 * 24 * 3600).default(12 * 3600),
  /**
   * Sign-in throttling (lib/access/auth/sign-in-throttle.ts), per account AND source address, never a lockout:
   * the first SIGN_IN_FREE_FAILURES wrong passwords cost no wait; each further one makes that address
   * wait for that account SIGN_IN_DELAY_SECONDS, doubled per failure up to SIGN_IN_MAX_DELAY_SECONDS.
   * SIGN_IN_CONCURRENT_CHECKS: password checks (scrypt, 128 MiB and about a second each) one function
   * instance runs at once; a sign-in beyond them is told at once to try again (429).
   */
  SIGN_IN_FREE_FAILURES: z.coerce.number().int().min(0).default(5),
  SIGN_IN_DELAY_SECONDS: z.coerce.number().int().positive().default(1),
  SIGN_IN_MAX_DELAY_SECONDS: z.coerce.number().int().positive().max(3600).default(300),
  SIGN_IN_CONCURRENT_CHECKS: z.coerce.number().int().positive().max(16).default(2),
  /**
   * The local platform's one-click sign-in link (lib/web/console/sign-in-link.ts): the SHA-256 (hex) of
   * the link's secret, set by `npm start` in the functions' environment only. Never in serverless.yml,
   * so a deployed stage has none (scripts/ci/check-template.ts reads the template to be sure); and even
   * when set, a link works only on a loopback address.
   */
  LOCAL_SIGN_IN_LINK_HASH: z
    .string()
    .regex(/^([0-9a-f]{64})?$/, 'must be the SHA-256 of the link secret, 64 hex digits')
    .default(''),

  /**
   * Authentication of the Google-dialect APIs (label limits, migration assessment). `enforced` (the
   * default, and what serverless.yml deploys): the bearer token (or `key`/`access_token` parameter) must
   * be an API key of this service holding one of the method's OAuth scopes
   * (`npm run keys -- create --scopes cloud-platform,drive.labels`). `open`: any bearer token or none is
   * accepted; only when set explicitly (`npm start` sets it for local use and says so in its banner).
   */
  GOOGLE_AUTH_MODE: z.enum(['open', 'enforced']).default('enforced'),
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

  /** Largest file an import/upload form accepts, bytes: at most 5 GiB, the most S3 takes in one POST. */
  MAX_UPLOAD_BYTES: z.coerce.number().int().positive().max(5 * 1024 ** 3).default(5 * 1024 ** 3),
  /**
   * The longest a task may run, seconds: the step functions' timeout (900 s, Lambda's most) less a
   * margin to record the outcome. A task's `timeout` above it, or none, is cut to it.
   */
  TASK_MAX_SECONDS: z.coerce.number().int().positive().default(885),
  /**
   * Where engine operations run (lib/file-api/operations/engine-task.ts): `inline` (default) in the step
   * function itself, its native tools confined by bubblewrap (lib/engines/core/confine.ts); `function` in
   * the family's engine function (ENGINE_FUNCTION_NAME), a Lambda function whose role grants nothing and
   * whose network reaches only the files bucket, handed presigned URLs of the task's own files
   * (lib/file-api/operations/engine-function.ts). The deployed stack sets `function`.
   */
  ENGINE_ISOLATION: z.enum(['inline', 'function']).default('inline'),
  /** The engine function this step function invokes with ENGINE_ISOLATION=function (set per family at packaging). */
  ENGINE_FUNCTION_NAME: z.string().default(''),
  /**
   * In an engine function: after each task, kill every process but this one and its ancestors and
   * empty /tmp (lib/engines/core/reaper.ts). Only where the process is alone in its machine (Lambda, or a
   * pid namespace of its own): elsewhere it would kill the user's other processes.
   */
  ENGINE_REAP: bool.default(false),
  /**
   * How long an import/upload form is valid. Forms are signed each time the task is shown, with the
   * showing function's credentials (in Lambda, its role's session, which lasts about as long), and
   * never past the task's own end; fetch the task again for a fresh form.
   */
  UPLOAD_FORM_SECONDS: z.coerce.number().int().positive().max(7 * 24 * 3600).default(3600),
  /**
   * The key of the service's export URLs (`/v2/files/...`, HMAC-SHA256), at least 32 characters. Unset
   * (the default): a random key made on first use and kept in the state table. Set it to manage the key
   * yourself (e.g. from a secret store); changing it invalidates every export URL handed out.
   */
  URL_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional().or(z.literal('').transform(() => undefined)),
  /**
   * How many times a step queue delivers a task's message before its dead-letter queue takes it: the
   * queues' `maxReceiveCount`, which serverless.yml passes from the queue definition (the local platform
   * reads the same definition). On the last run a passing failure ends the task with its message
   * instead of being retried into the dead-letter queue (`finalAttempt` of an operation's context).
   */
  STEP_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(5),
  /** How long a step consumer's claim on a task lasts without renewal (renewed every third of it). */
  STEP_LEASE_SECONDS: z.coerce.number().int().min(3).max(900).default(30),
  /** The longest a wait endpoint blocks before answering with the current state (below the gateway's 30 s). */
  SYNC_MAX_WAIT_SECONDS: z.coerce.number().positive().max(28).default(25),
  /**
   * How many waits (the wait and synchronous endpoints) may hold a function at once in the stage; a wait
   * beyond it answers at once with the current state, as one that timed out (lib/file-api/tasks/wait-budget.ts).
   * The wait functions' reserved concurrency is set a little above it, so waits never starve other routes.
   */
  WAIT_BUDGET: z.coerce.number().int().min(0).default(40),
  /**
   * How long a signed URL's request waits for its job before redirecting the client to the same URL to
   * wait again on the same job (below the gateway's 30 s; tests set it short).
   */
  SIGNED_URL_WAIT_SECONDS: z.coerce.number().positive().max(28).default(25),

  /**
   * User storage endpoints the operator may point elsewhere (tests, sovereign clouds). Azure: a template
   * with `{account}` (default `https://{account}.blob.core.windows.net`). Google Cloud Storage: the JSON
   * API endpoint and the OAuth 2.0 token endpoint of the service-account JWT exchange (Google's when unset).
   */
  AZURE_BLOB_ENDPOINT: z
    .string()
    .default('')
    .refine((v) => v === '' || (v.includes('{account}') && /^https?:\/\//.test(v)), 'must be an http(s) URL template holding {account}'),
  GCS_API_ENDPOINT: optionalUrl,
  GCS_TOKEN_URL: optionalUrl,

  /** Webhook deliveries: the waits before each retry after a network error or a 5xx (at most 900 s each), and the request timeout. */
  WEBHOOK_RETRY_DELAYS_SECONDS: z
    .string()
    .default('30,120,600')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean).map(Number))
    .pipe(z.array(z.number().int().min(0).max(900))),
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().positive().max(120).default(15),

  /**
   * Live job and task events over socket.io (lib/file-api/events): the API Gateway management endpoint of the
   * WebSocket API (`https://{api id}.execute-api.{region}.amazonaws.com/{stage}`, built in serverless.yml;
   * locally serverless-offline's websocket port). Empty: nothing is published (no socket endpoint).
   */
  SOCKET_ENDPOINT: optionalUrl,
  /** The function the connect handler invokes (asynchronously) to send the Engine.IO open packet. */
  SOCKET_HELLO_FUNCTION: z.string().default(''),
  /**
   * The ping interval and timeout announced in the open packet, seconds: a client closes the connection
   * when no ping came within their sum. The scheduled ping function (SOCKET_PING_SCHEDULE in
   * serverless.yml, every minute) must come at least every SOCKET_PING_SECONDS; 60 + 60 leaves a whole
   * minute for a late schedule, and a ping a minute keeps the gateway's 10-minute idle timeout away.
   */
  SOCKET_PING_SECONDS: z.coerce.number().int().positive().max(300).default(60),
  SOCKET_PING_TIMEOUT_SECONDS: z.coerce.number().int().positive().max(300).default(60),
  /**
   * A connection that has not subscribed within this many seconds is told (socket.io's disconnect)
   * and closed, by the ping that follows (so within this plus the ping interval: 30–90 s by default).
   * The SDK subscribes as soon as it connects.
   */
  SOCKET_SUBSCRIBE_SECONDS: z.coerce.number().int().positive().max(3600).default(30),
  /**
   * How many connections that have not subscribed yet may be open at once, from one source address and
   * in all: a connect over either is refused (429). Each costs a record and a ping until it subscribes
   * or SOCKET_SUBSCRIBE_SECONDS end it.
   */
  SOCKET_PENDING_PER_ADDRESS: z.coerce.number().int().positive().max(100_000).default(10),
  SOCKET_PENDING_TOTAL: z.coerce.number().int().positive().max(1_000_000).default(1000),
  /**
   * How long a function instance trusts its last check that a subscription's credential is still good
   * (seconds; 0: every event checks): a revoked key, token or grant, or a disabled user, hears nothing
   * more at most this long after. Each check is one or two reads per credential, not per event.
   */
  SOCKET_CREDENTIAL_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(3),

  /**
   * Most operations in one GraphQL batch (a JSON array body, as graphql-request's batchRequests and
   * Apollo's BatchHttpLink send); 0 refuses batches. A batch's cost together is held to the limit of
   * one operation whatever this says (lib/graphql/cost.ts).
   */
  GRAPHQL_BATCH_LIMIT: z.coerce.number().int().min(0).max(100).default(10),

  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Allows user-requested fetches to loopback addresses. Tests only; never in the cloud. */
  ALLOW_LOOPBACK_FETCH: bool.default(false),
  /** Exact `host:port` pairs user-requested fetches may reach although their address is private (tests). */
  FETCH_ALLOW_HOSTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),

  ...engineShape,
});

export type Config = z.infer<typeof schema>;
const engineSchema = z.object(engineShape);
export type EngineConfig = z.infer<typeof engineSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration, set these environment variables: ${problems}`);
  }
  return withRegions(result.data);
}

/** The region settings checked against REGIONS (each names regions of the list), REGION_DEFAULT filled in. */
function withRegions(c: Config): Config {
  const regions = c.REGIONS;
  const problems: string[] = [];
  const unknown = (r: string) => `${r} is not one of REGIONS (${regions.join(', ')})`;
  const defaultRegion = c.REGION_DEFAULT.trim() || regions[0]!;
  if (!regions.includes(defaultRegion)) problems.push(`REGION_DEFAULT: ${unknown(defaultRegion)}`);
  for (const r of c.REGION_ADDRESS_RANGES) if (!regions.includes(r.region)) problems.push(`REGION_ADDRESS_RANGES: ${r.range}: ${unknown(r.region)}`);
  for (const r of Object.keys(c.REGION_BUCKETS)) if (!regions.includes(r)) problems.push(`REGION_BUCKETS: ${unknown(r)}`);
  if (problems.length) throw new ConfigError(`invalid configuration, set these environment variables: ${problems.join('; ')}`);
  return { ...c, REGION_DEFAULT: defaultRegion };
}

/** The engine settings alone (see `engineShape`), validated like the rest. */
export function parseEngineConfig(env: Record<string, string | undefined>): EngineConfig {
  const result = engineSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration, set these environment variables: ${problems}`);
  }
  return result.data;
}

let cachedEngines: EngineConfig | undefined;

/** The engine settings of this process, parsed on first use; works where the rest is not configured. */
export function engineConfig(): EngineConfig {
  cachedEngines ??= parseEngineConfig(process.env);
  return cachedEngines;
}

/** The built-in account's settings alone, for the command-line tools, which have no STATE_TABLE and the like. */
export function accountConfig(env: Record<string, string | undefined> = process.env) {
  return schema.pick({ ACCOUNT_USERNAME: true, ACCOUNT_EMAIL: true, ACCOUNT_CREDITS: true }).parse(env);
}

/** The GraphQL function's settings alone (it needs none of the rest). */
export function graphqlConfig(env: Record<string, string | undefined> = process.env): Pick<Config, 'GRAPHQL_BATCH_LIMIT'> {
  const result = schema.pick({ GRAPHQL_BATCH_LIMIT: true }).safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(`invalid configuration, set these environment variables: GRAPHQL_BATCH_LIMIT: ${result.error.issues[0]?.message}`);
}

/** The region list and each region's bucket alone (the local platform makes a bucket per region). */
export function regionConfig(env: Record<string, string | undefined> = process.env) {
  return schema.pick({ REGIONS: true, REGION_BUCKETS: true }).parse(env);
}

let cached: Config | undefined;

/** The configuration of this process, parsed on first use. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
