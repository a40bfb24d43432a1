/**
 * The event names POST /v2/webhooks accepts (lib/file-api/webhooks/model.ts WEBHOOK_EVENTS; a unit
 * test keeps the two equal), with the words the console shows beside each box.
 */
export const WEBHOOK_EVENT_WORDS = {
  'job.created': 'A job is created',
  'job.finished': 'A job finished',
  'job.failed': 'A job failed',
  'task.created': 'A task is created',
  'task.finished': 'A task finished',
  'task.failed': 'A task failed',
} as const;

export type WebhookEventName = keyof typeof WEBHOOK_EVENT_WORDS;
export const WEBHOOK_EVENT_NAMES = Object.keys(WEBHOOK_EVENT_WORDS) as WebhookEventName[];
