/**
 * What DynamoDB's TTL and the bucket's lifecycle rule do in the cloud, for the local platform:
 * dynalite has no TTL and s3rver no lifecycle, so expired items are deleted here, with the files of
 * expired tasks, each from its region's bucket (in the cloud they go a day after they were written). Reads already treat expired
 * items as gone; this keeps the local data folder from growing.
 */
import { filesOf, type FileStore, type RegionFiles } from '../lib/adapters/file-store/port.js';
import { taskPrefix, uploadPrefix } from '../lib/file-api/operations/framework/types.js';
import type { Item, StateStore } from '../lib/adapters/state/port.js';

export async function deleteExpired(deps: { state: StateStore; files: FileStore; regionFiles?: RegionFiles }, now = Date.now()): Promise<number> {
  let deleted = 0;
  let cursor: string | undefined;
  do {
    const page = await deps.state.scan<Item>({ filter: { below: { expiresAt: Math.floor(now / 1000) + 1 } }, cursor });
    for (const item of page.items) {
      if (item.sk === 'task') {
        const files = filesOf(deps, { region: typeof item.region === 'string' ? item.region : undefined });
        await files.deletePrefix(taskPrefix(String(item.id)));
        await files.deletePrefix(uploadPrefix(String(item.id)));
      }
      await deps.state.delete({ pk: item.pk, sk: item.sk });
      deleted++;
    }
    cursor = page.cursor;
  } while (cursor);
  return deleted;
}
