/** Webhook endpoints as stored, the events they can subscribe to, and how the settings API shows them. */
import { toIsoSeconds } from '../../kernel/time.js';
import type { Item } from '../../adapters/state/port.js';

/** Job events (settings and `webhook_url`) and task events (settings only). */
export const WEBHOOK_EVENTS = ['job.created', 'job.finished', 'job.failed', 'task.created', 'task.finished', 'task.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** What a job's dynamic `webhook_url` receives. */
export const JOB_URL_EVENTS: readonly WebhookEvent[] = ['job.finished', 'job.failed'];

export interface WebhookRecord extends Item {
  id: string;
  userId: number;
  url: string;
  events: WebhookEvent[];
  /** API key ids whose jobs and tasks this endpoint hears about; empty: every key of the user. */
  keyIds: string[];
  /** HMAC-SHA256 key of the `CloudConvert-Signature` header. */
  signingSecret: string;
  /** Set when the endpoint answered 410 Gone: nothing is sent any more. */
  disabled: boolean;
  /** Set when the last delivery failed for good; cleared by the next success. */
  failing: boolean;
  /** A sandbox endpoint: it hears only of sandbox jobs and tasks (live endpoints only of live ones). */
  sandbox?: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The signing secret of the user's dynamic webhooks (`webhook_url` on a job). */
export interface AccountSecretRecord extends Item {
  userId: number;
  signingSecret: string;
  createdAt: string;
}

export const webhookKey = (id: string) => ({ pk: `webhook#${id}`, sk: 'webhook' });
export const userWebhooksIndex = (userId: number, sandbox = false) => `${sandbox ? 'sandbox-' : ''}webhooks#${userId}`;
export const accountSecretKey = (userId: number) => ({ pk: `webhook-secret#${userId}`, sk: 'webhook-secret' });

export function webhookView(hook: WebhookRecord, baseUrl: string): Record<string, unknown> {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    api_key_ids: hook.keyIds,
    disabled: hook.disabled,
    failing: hook.failing,
    signing_secret: hook.signingSecret,
    created_at: toIsoSeconds(hook.createdAt),
    updated_at: toIsoSeconds(hook.updatedAt),
    links: { self: `${baseUrl}/v2/webhooks/${hook.id}` },
  };
}

/** Who created a job or task, as recorded on it: the API key (webhook assignment) and the base URL of its links. */
export function originOf(record: Record<string, unknown>): { keyId?: string; baseUrl?: string } {
  return {
    keyId: typeof record.keyId === 'string' ? record.keyId : undefined,
    baseUrl: typeof record.baseUrl === 'string' ? record.baseUrl : undefined,
  };
}
