/** Consumer of the webhooks queue: one signed POST per message, retried with back-off (lib/webhooks/deliver.ts). */
import { config } from '#lib/config.js';
import { userFetchPolicy } from '#lib/net/address-policy.js';
import { fileStore } from '#lib/platform/files.js';
import { rootLogger } from '#lib/platform/logger.js';
import { queueClient } from '#lib/platform/queue.js';
import { sqsConsumer } from '#lib/queue/consumer.js';
import { deliverWebhook, webhookMessage } from '#lib/webhooks/deliver.js';
import { webhookStore } from '#lib/webhooks/platform.js';

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
