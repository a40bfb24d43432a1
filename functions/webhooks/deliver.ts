/** Consumer of the webhooks queue: one signed POST per message, retried with back-off (lib/file-api/webhooks/deliver.ts). */
import { config } from '#lib/kernel/config.js';
import { userFetchPolicy } from '#lib/adapters/net/address-policy.js';
import { fileStore } from '#lib/wiring/files.js';
import { rootLogger } from '#lib/kernel/root-logger.js';
import { queueClient } from '#lib/wiring/queue.js';
import { sqsConsumer } from '#lib/adapters/queue/consumer.js';
import { deliverWebhook, webhookMessage } from '#lib/file-api/webhooks/deliver.js';
import { webhookStore } from '#lib/wiring/webhooks.js';

export const handler = sqsConsumer({
  schema: webhookMessage,
  log: () => rootLogger().child({ consumer: 'webhooks' }),
  async handle(message, { log }) {
    const c = config();
    await deliverWebhook(message, {
      webhooks: webhookStore(),
      queue: queueClient(),
      log,
      policy: userFetchPolicy(c),
      retryDelaysSeconds: c.WEBHOOK_RETRY_DELAYS_SECONDS,
      timeoutMs: c.WEBHOOK_TIMEOUT_SECONDS * 1000,
      files: fileStore(),
    });
  },
});
