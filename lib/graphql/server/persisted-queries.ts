/**
 * Automatic persisted queries, Apollo's protocol: an operation may send
 * `extensions.persistedQuery: { version: 1, sha256Hash }` in place of its query. A hash this function
 * instance knows runs its query; an unknown one is answered `PersistedQueryNotFound` (code
 * PERSISTED_QUERY_NOT_FOUND), on which Apollo's PersistedQueryLink sends hash and query together; a
 * query sent with a hash is kept under it when the hash is the query's own, and refused when not.
 *
 * Written here because @graphql-yoga/plugin-apq wants @graphql-tools/utils 10 beside yoga's 11. The
 * store is per function instance, in memory and bounded (entries, least recently used out first, and
 * the length of a query kept): a miss only costs the client one more request with the whole query.
 * Runs in `onParams`, per operation, so each operation of a batch is answered by its own hash, and
 * before yoga checks the parameters, parses and refuses mutations over GET.
 */
import { createHash } from 'node:crypto';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

export interface PersistedQueryOptions {
  /** Queries kept, least recently used out first. */
  maxEntries: number;
  /** Longest query kept, in characters; a longer one runs but is not kept. */
  maxQueryLength: number;
}

const SHA256_HEX = /^[0-9a-f]{64}$/i;

const badRequest = (message: string, code = 'BAD_REQUEST') =>
  createGraphQLError(message, { extensions: { code, http: { status: 400 } } });

/** A bounded map that forgets the least recently used entry (a Map keeps insertion order). */
class LruStore {
  readonly #entries = new Map<string, string>();
  constructor(readonly max: number) {}
  get(key: string): string | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: string): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value!);
  }
}

/** A value from the request as an error message shows it: JSON, cut short. */
const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'none';
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

/** The persistedQuery extension checked field by field; undefined when the operation sends none. */
function persistedHash(extensions: unknown): string | undefined {
  if (extensions === null || typeof extensions !== 'object') return undefined;
  const persisted = (extensions as Record<string, unknown>).persistedQuery;
  if (persisted === undefined || persisted === null) return undefined;
  if (typeof persisted !== 'object' || Array.isArray(persisted)) {
    throw badRequest('extensions.persistedQuery: an object with version and sha256Hash');
  }
  const { version, sha256Hash } = persisted as Record<string, unknown>;
  if (version !== 1) throw badRequest(`extensions.persistedQuery.version: only 1 is supported, got ${shown(version)}`);
  if (typeof sha256Hash !== 'string' || !SHA256_HEX.test(sha256Hash)) {
    throw badRequest(`extensions.persistedQuery.sha256Hash: 64 hexadecimal digits, got ${shown(sha256Hash)}`);
  }
  return sha256Hash.toLowerCase();
}

export function usePersistedQueries(opts: PersistedQueryOptions): Plugin {
  const store = new LruStore(opts.maxEntries);
  return {
    onParams({ params, setParams }) {
      const hash = persistedHash(params.extensions);
      if (hash === undefined) return;
      const { query } = params;
      if (typeof query === 'string') {
        if (createHash('sha256').update(query).digest('hex') !== hash) {
          throw badRequest('extensions.persistedQuery.sha256Hash: not the SHA-256 of the query sent', 'PERSISTED_QUERY_HASH_MISMATCH');
        }
        if (query.length <= opts.maxQueryLength) store.set(hash, query);
        return;
      }
      if (query !== undefined && query !== null) return; // not a string: yoga's parameter check says so
      const known = store.get(hash);
      if (known === undefined) {
        throw createGraphQLError('PersistedQueryNotFound', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
      }
      setParams({ ...params, query: known });
    },
  };
}
