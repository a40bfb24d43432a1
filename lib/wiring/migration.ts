/** The migration service of this function instance, built once from the configuration. */
import { config, type Config } from '../kernel/config.js';
import { once, stateStore } from './clients.js';
import { rootLogger } from '../kernel/root-logger.js';
import { queueClient } from './queue.js';
import { MigrationService, type MigrationSettings } from '../google/migration/service.js';

export function migrationSettings(c: Config): MigrationSettings {
  return {
    locations: c.MIGRATION_LOCATIONS,
    deleteGraceSeconds: c.MIGRATION_DELETE_GRACE_SECONDS,
    operationDelaySeconds: c.MIGRATION_OPERATION_DELAY_SECONDS,
    requestIdTtlSeconds: c.MIGRATION_REQUEST_ID_TTL_SECONDS,
    operationRetentionDays: c.MIGRATION_OPERATION_RETENTION_DAYS,
    pageSizes: { default: c.GOOGLE_DEFAULT_PAGE_SIZE, max: c.GOOGLE_MAX_PAGE_SIZE },
  };
}

export const migrationService = once(
  () => new MigrationService(stateStore(), queueClient(), migrationSettings(config()), rootLogger().child({ component: 'migration' })),
);
