/**
 * Consumer of the operations queue: completes the long-running operations of the migration
 * assessment API (lib/google/migration/service.ts `runOperation`). Failed records are reported as
 * batch item failures and delivered again; the work is idempotent.
 */
import { migrationService } from '#lib/wiring/migration.js';
import { operationMessage } from '#lib/google/migration/service.js';
import { rootLogger } from '#lib/kernel/root-logger.js';
import { sqsConsumer } from '#lib/adapters/queue/consumer.js';

export const handler = sqsConsumer({
  schema: operationMessage,
  log: () => rootLogger().child({ component: 'operations-worker' }),
  handle: (message, { log }) => log.time('operation run', () => migrationService().runOperation(message.operation), { operation: message.operation }),
});
