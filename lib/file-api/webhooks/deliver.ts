/**
 * One webhook delivery: `POST` of the event's JSON body, signed with the endpoint's secret, through the
 * guarded client (no private, loopback, link-local or metadata addresses; redirects are not followed).
 *
 * - 2xx: delivered (a failing endpoint is marked healthy again).
 * - 410 Gone: the endpoint is disabled; nothing more is sent to it.
 * - a network error or a 5xx: sent again after the next back-off delay (a new queue message with
 *   `DelaySeconds`, so the wait costs nothing), until the delays run out; then the endpoint is failing.
 * - anything else: the endpoint is failing.
 */
import * as z from 'zod';
import type { FileStore } from '../../adapters/file-store/port.js';
import type { Logger } from '../../kernel/log.js';
import { FetchFailedError, guardedFetch, type AddressPolicy } from '../../adapters/net/guarded-fetch.js';
import type { Queue } from '../../adapters/queue/port.js';
import type { WebhookMessage } from './events.js';
import { WEBHOOK_EVENTS } from './model.js';
import { signBody, SIGNATURE_HEADER } from './sign.js';
import type { WebhookStore } from './store.js';

export const webhookMessage = z
  .object({
    userId: z.number().int(),
    webhookId: z.string().optional(),
    url: z.string().url().optional(),
    event: z.enum(WEBHOOK_EVENTS),
    body: z.string().optional(),
    bodyKey: z.string().startsWith('webhooks/').optional(),
    attempt: z.number().int().min(1),
  })
  .refine((m) => (m.webhookId === undefined) !== (m.url === undefined), 'a delivery goes to a webhook id or to a url')
  .refine((m) => (m.body === undefined) !== (m.bodyKey === undefined), 'a delivery carries its body or the key of its file');

export interface DeliveryDeps {
  webhooks: WebhookStore;
  queue: Queue;
  log: Logger;
  policy: AddressPolicy;
  /** Waits before the 1st, 2nd… retry, seconds. */
  retryDelaysSeconds: readonly number[];
  timeoutMs: number;
  userAgent?: string;
  /** Where large bodies are kept (messages with `bodyKey`). */
  files?: FileStore;
}

async function bodyOf(message: WebhookMessage, files: FileStore | undefined): Promise<string> {
  if (message.body !== undefined) return message.body;
  if (!files) throw new Error('a webhook body kept as a file needs the files store');
  const { body } = await files.get(message.bodyKey!);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'disabled' | 'skipped';

export async function deliverWebhook(message: WebhookMessage, deps: DeliveryDeps): Promise<DeliveryOutcome> {
  const log = deps.log.child({ event: message.event, webhookId: message.webhookId, attempt: message.attempt });
  let url: string;
  let secret: string;
  const hook = message.webhookId ? await deps.webhooks.get(message.webhookId) : undefined;
  if (message.webhookId) {
    if (!hook || hook.userId !== message.userId || hook.disabled) {
      log.info('webhook skipped: endpoint deleted or disabled');
      return 'skipped';
    }
    url = hook.url;
    secret = hook.signingSecret;
  } else {
    url = message.url!;
    secret = await deps.webhooks.accountSecret(message.userId);
  }

  const body = await bodyOf(message, deps.files);
  let status: number | undefined;
  let problem: string;
  let transient: boolean;
  try {
    const res = await guardedFetch(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: signBody(body, secret),
          'user-agent': deps.userAgent ?? 'api-platform-webhooks/1',
        },
        body: Buffer.from(body, 'utf8'),
        maxRedirects: 0,
        timeoutMs: deps.timeoutMs,
      },
      deps.policy,
    );
    res.body.resume();
    status = res.status;
    problem = `HTTP ${res.status}`;
    transient = res.status >= 500;
  } catch (err) {
    if (!(err instanceof FetchFailedError)) throw err;
    problem = err.message;
    // Network trouble is worth another try; a refused address or a redirect is not.
    transient = err.retryable;
  }

  if (status !== undefined && status >= 200 && status < 300) {
    if (hook?.failing) await deps.webhooks.mark(hook.id, { failing: false });
    log.info('webhook delivered', { status });
    return 'delivered';
  }
  if (status === 410) {
    if (hook) await deps.webhooks.mark(hook.id, { disabled: true });
    log.info('webhook endpoint gone (410): disabled');
    return 'disabled';
  }
  const delay = deps.retryDelaysSeconds[message.attempt - 1];
  if (transient && delay !== undefined) {
    await deps.queue.send('webhooks', { ...message, attempt: message.attempt + 1 } satisfies WebhookMessage, { delaySeconds: delay });
    log.info('webhook delivery failed, will retry', { problem, delaySeconds: delay });
    return 'retrying';
  }
  if (hook && !hook.failing) await deps.webhooks.mark(hook.id, { failing: true });
  log.warn('webhook delivery failed', { problem });
  return 'failed';
}
