/**
 * Partition keys spread over shards, so that one tenant's writes are not all on one key (DynamoDB
 * takes about 1,000 writes a second per partition key). Shard 0 is the key as it was before it was
 * sharded (`base`), so records written before stay where readers look; shard n is `base#s<n>`.
 */

/** The shard of a record, from its id: a 32-bit FNV-1a hash, so every function finds the same one. */
export function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}

export const shardKey = (base: string, shard: number): string => (shard === 0 ? base : `${base}#s${shard}`);

/** Every shard's key, shard 0 first. */
export const shardKeys = (base: string, shards: number): string[] => Array.from({ length: shards }, (_, n) => shardKey(base, n));

/** The key a sharded key belongs to (`tasks#7#s3` → `tasks#7`). */
export const unsharded = (key: string): string => key.replace(/#s\d+$/, '');

/** A shard picked at random: for counters, whose adds go anywhere and whose reads sum every shard. */
export const anyShard = (shards: number): number => Math.floor(Math.random() * shards);
