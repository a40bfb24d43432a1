/**
 * The creature GraphQL server as one yoga instance: schema and resolvers, the offline explorer, the
 * limits, CSRF prevention, batching and automatic persisted queries. Build it once per process (module
 * scope) and serve it from Lambda (functions/graphql/handler.ts), `node:http` (`createServer(yoga)`) or
 * in-process (`yoga.fetch`).
 * The state store and logger are taken lazily, so building the instance reads no configuration.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { createInMemoryCache, useResponseCache } from '@graphql-yoga/plugin-response-cache';
import type { GraphQLError, ValidationContext } from 'graphql';
import { createGraphQLError, createSchema, createYoga, type GraphiQLOptions, type YogaServerInstance, type YogaServerOptions } from 'graphql-yoga';
import { createLogger, type Logger } from '../../kernel/log.js';
import type { StateStore } from '../../adapters/state/port.js';
import { useCostLimit, type ListSize } from '../server/cost.js';
import { useIntrospectionDepthLimit } from '../server/introspection-depth.js';
import { CSRF_HEADERS, useCsrfPrevention } from '../server/csrf.js';
import { maskError, yogaLogger } from '../server/errors.js';
import { useGetParams, useParamsObject } from '../server/params.js';
import { usePersistedQueries } from '../server/persisted-queries.js';
import { offlineGraphiQL } from '../server/graphiql.js';
import { assertRootResolvers } from '../server/root-resolvers.js';
import { creatureCatalog, type CreatureCatalog } from './catalog.js';
import { Messages } from './messages.js';
import type { CreatureRecord } from './model.js';
import { resolvers, type CreatureContext } from './resolvers.js';
import { typeDefs } from './schema.js';

/**
 * Limits on every operation. Depth is the one that matters most: `evolutions` and
 * `previousEvolutions` recurse, and so does introspection, which has its own depth rule (a run of
 * `ofType` counts once, lib/graphql/server/introspection-depth.ts) and counts against the cost limit.
 */
export const GRAPHQL_LIMITS = {
  /** Deepest selection: `creature { evolutions { attacks { special { name } } } }` is 5; GraphiQL's introspection 7. */
  maxDepth: 8,
  /** Longest run of nested `ofType` in introspection: graphql-js 16's query asks 9, older clients 7. */
  maxWrapperRun: 9,
  /**
   * Most fields a response may hold, estimated before execution (lib/graphql/server/cost.ts); about 1–2 MB of
   * JSON, well under Lambda's 6 MB response limit. Every field of all 150 creatures with every field of
   * their evolutions costs 36,000; the benchmark query 5,100; 15 aliases of every creature field 108,000.
   */
  maxCost: 50_000,
  maxAliases: 15,
  /** Tokens in the whole document (GraphiQL's introspection query has under 200). */
  maxTokens: 1000,
  maxDirectives: 50,
  /** Largest request body; a message holds at most ~40 KB. */
  maxRequestBodyBytes: 100_000,
  /**
   * Responses kept by the response cache, least recently used out first. The largest response the
   * cost limit lets through is about 2 MB of JSON (a few MB as objects), so the cache stays well
   * under 256 MB of the function's 1024 MB.
   */
  cachedResponses: 64,
  /**
   * Operations in one batch (a JSON array body) unless the server is given another bound
   * (GRAPHQL_BATCH_LIMIT). Each is limited like a single operation, and the batch's cost together is
   * held to `maxCost`, so a batch's answer is no larger than one operation's can be.
   */
  batchOperations: 10,
  /**
   * Automatic persisted queries kept per function instance, and the longest query kept: at most about
   * 20 MB of strings. A query the store has dropped costs its client one more request.
   */
  persistedQueries: 1000,
  persistedQueryLength: 10_000,
} as const;

/**
 * graphql-armor throws on the first limit a validation rule finds; reporting instead lets a client see
 * every limit its operation breaks, without armor's misleading "Syntax Error:" prefix. Nothing
 * executes either way.
 */
const reportAll = {
  exposeLimits: true,
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) => {
      const message = error.message.replace(/^Syntax Error: /, '');
      if (!context) throw error;
      context.reportError(createGraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }));
    },
  ],
};

export type CreatureYoga = YogaServerInstance<object, CreatureContext>;

export interface CreatureYogaOptions {
  /** The store that keeps messages; a function is called once, on the first message request. */
  store: StateStore | (() => StateStore);
  /** Where yoga's logs go; a function is called on the first log line. Default: JSON lines on stdout. */
  logger?: Logger | (() => Logger);
  /** Default `/graphql`; the explorer page loads its assets from `<endpoint>/assets/` (the graphiqlAssets function). */
  graphqlEndpoint?: string;
  /** Serve GraphiQL on GET with `accept: text/html` (default true). */
  graphiql?: boolean;
  catalog?: CreatureCatalog;
  /**
   * Keep the answers of queries that read only creature data (default true). The catalogue is part
   * of the bundle and never changes while a function instance lives, so a cached answer is always the
   * one execution would give. Answers that hold a `Message` are never cached: messages live in the
   * state store, and another function instance may change one at any moment.
   */
  responseCache?: boolean;
  /**
   * A plugin that replaces graphql-js's execution, placed before the response cache: `npm run bench`
   * measures graphql-jit's (`useGraphQlJit()` of @envelop/graphql-jit, a development dependency).
   * The function does not use it: the errors of compiled operations lose `locations`, which
   * graphql-js gives and the GraphQL spec asks for, and with the response cache it saves nothing on a
   * repeated query.
   */
  execution?: NonNullable<YogaServerOptions<object, CreatureContext>['plugins']>[number];
  /** Keep parsed and validated documents (yoga's parser and validation cache, default true). */
  parseCache?: boolean;
  /** Most operations in one batch; 0 refuses batches (default GRAPHQL_LIMITS.batchOperations). */
  batchLimit?: number;
}

const lazy = <T extends object>(value: T | (() => T)): (() => T) => {
  let made: T | undefined;
  return () => (made ??= typeof value === 'function' ? (value as () => T)() : value);
};

/** The most items each list field can return, from the data (lib/graphql/server/cost.ts uses them). */
export function creatureListSizes(catalog: CreatureCatalog): Record<string, ListSize> {
  const most = (count: (r: CreatureRecord) => number) => Math.max(0, ...catalog.all.map(count));
  return {
    'Query.creatures': ({ first }) =>
      typeof first === 'number' ? Math.min(Math.max(first, 0), catalog.maxPageSize) : catalog.maxPageSize,
    'Creature.evolutions': most((r) => r.evolutions.length),
    'Creature.previousEvolutions': most((r) => r.previousEvolutions.length),
    'CreatureAttacks.fast': most((r) => r.attacks.fast.length),
    'CreatureAttacks.special': most((r) => r.attacks.special.length),
  };
}

/** A query that shows what the API holds, for the explorer's first visit. */
export function defaultExplorerQuery(catalog: CreatureCatalog): string {
  const example = catalog.all[0]?.name ?? 'Cindlet';
  return `# Welcome to the creature API. Press the run button (or Ctrl-Enter) to run this query.
# Open the docs (the book icon on the left) to browse every type and field.
#
# Try also:  creature(name: "${example.toLowerCase()}") { name evolutions { name } }
# and the message board:
#   mutation { createMessage(input: { content: "hello", author: "me" }) { id } }
#   query { getMessage(id: "<the id>") { content author } }

query FirstCreatures {
  creatures(first: 3) {
    number
    name
    types
    weaknesses
    weight { minimum maximum }
    attacks {
      fast { name type damage }
      special { name type damage }
    }
    evolutions { name }
    evolutionRequirements { amount name }
  }
}
`;
}

export function createCreatureYoga(opts: CreatureYogaOptions): CreatureYoga {
  // Fails at startup when a root field has no resolver of the same name (or the reverse).
  assertRootResolvers(typeDefs, resolvers);

  const catalog = opts.catalog ?? creatureCatalog();
  const logger = lazy(opts.logger ?? (() => createLogger({ service: 'graphql' })));
  const messages = new Messages(opts.store);
  const graphqlEndpoint = opts.graphqlEndpoint ?? '/graphql';
  const explorer = offlineGraphiQL({ graphqlEndpoint });

  const graphiql: GraphiQLOptions | false =
    opts.graphiql === false
      ? false
      : {
          title: 'Creature API explorer',
          defaultQuery: defaultExplorerQuery(catalog),
          shouldPersistHeaders: false,
        };

  return createYoga<object, CreatureContext>({
    schema: createSchema<CreatureContext>({ typeDefs, resolvers }),
    graphqlEndpoint,
    graphiql,
    renderGraphiQL: explorer.render,
    landingPage: false,
    logging: yogaLogger(logger),
    maskedErrors: { maskError, isDev: false },
    multipart: false,
    parserAndValidationCache: opts.parseCache ?? true,
    batching: { limit: opts.batchLimit ?? GRAPHQL_LIMITS.batchOperations },
    maxRequestBodySize: GRAPHQL_LIMITS.maxRequestBodyBytes,
    // A public, credential-free API: any origin may call it with a preflighted request.
    cors: {
      origin: '*',
      methods: ['GET', 'POST', 'OPTIONS'],
      allowedHeaders: ['content-type', 'accept', ...CSRF_HEADERS],
      credentials: false,
      maxAge: 600,
    },
    context: (): CreatureContext => ({ catalog, messages }),
    plugins: [
      useGetParams(),
      useParamsObject(),
      useCsrfPrevention(),
      // Before the cost limit, which reads the query a hash stands for.
      usePersistedQueries({ maxEntries: GRAPHQL_LIMITS.persistedQueries, maxQueryLength: GRAPHQL_LIMITS.persistedQueryLength }),
      useCostLimit({ maxCost: GRAPHQL_LIMITS.maxCost, maxTokens: GRAPHQL_LIMITS.maxTokens, listSizes: creatureListSizes(catalog) }),
      useIntrospectionDepthLimit({ maxDepth: GRAPHQL_LIMITS.maxDepth, maxWrapperRun: GRAPHQL_LIMITS.maxWrapperRun }),
      EnvelopArmorPlugin({
        // Introspection's depth: useIntrospectionDepthLimit (armor would count each ofType of GraphiQL's query).
        maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ignoreIntrospection: true, ...reportAll },
        // Replaced by useCostLimit, which knows how long each list is.
        costLimit: { enabled: false },
        maxAliases: { n: GRAPHQL_LIMITS.maxAliases, ...reportAll },
        maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives, ...reportAll },
        // Counted while parsing, before validation: this one can only throw.
        maxTokens: { n: GRAPHQL_LIMITS.maxTokens, exposeLimits: true },
        // The schema is public (introspection feeds the explorer), so "did you mean …?" hides nothing.
        blockFieldSuggestion: { enabled: false },
      }),
      // After the limits: an operation they reject never reaches the compiler or the cache. The
      // compiler first: the cache wraps whichever execute function it finds.
      ...(opts.execution ? [opts.execution] : []),
      ...(opts.responseCache === false
        ? []
        : [
            useResponseCache({
              // One public cache: the API has no users, and creature data is the same for everyone.
              session: () => null,
              ignoredTypes: ['Message'],
              cache: createInMemoryCache({ max: GRAPHQL_LIMITS.cachedResponses }),
            }),
          ]),
    ],
  });
}
