/** Webhooks without the network: signatures as the SDK checks them, subscriptions, messages, views. */
import CloudConvert from 'cloudconvert';
import { describe, expect, it } from 'vitest';
import { webhookMessage } from '#lib/file-api/webhooks/deliver.js';
import { subscribes } from '#lib/file-api/webhooks/events.js';
import { webhookView, type WebhookRecord } from '#lib/file-api/webhooks/model.js';
import { signBody } from '#lib/file-api/webhooks/sign.js';

describe('webhook signatures', () => {
  it('are the hex HMAC-SHA256 of the exact body, as webhooks.verify checks them', () => {
    const body = JSON.stringify({ event: 'job.finished', job: { id: 'x', tag: 'ünïcode ✓' } });
    const signature = signBody(body, 'the-secret');
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    const sdk = new CloudConvert('unused');
    expect(sdk.webhooks.verify(body, signature, 'the-secret')).toBe(true);
    expect(sdk.webhooks.verify(body + ' ', signature, 'the-secret')).toBe(false);
    expect(sdk.webhooks.verify(body, signature, 'other-secret')).toBe(false);
    // RFC 4231 test case 2
    expect(signBody('what do ya want for nothing?', 'Jefe')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});

describe('subscriptions', () => {
  const hook = { events: ['job.finished', 'task.failed'] as WebhookRecord['events'], keyIds: [] as string[], disabled: false };

  it('match the event, and the API key when the endpoint is assigned to keys', () => {
    expect(subscribes(hook, 'job.finished', 'k1')).toBe(true);
    expect(subscribes(hook, 'job.finished', undefined)).toBe(true);
    expect(subscribes(hook, 'job.created', 'k1')).toBe(false);
    expect(subscribes({ ...hook, disabled: true }, 'job.finished', 'k1')).toBe(false);
    const assigned = { ...hook, keyIds: ['k2'] };
    expect(subscribes(assigned, 'job.finished', 'k2')).toBe(true);
    expect(subscribes(assigned, 'job.finished', 'k1')).toBe(false);
    expect(subscribes(assigned, 'job.finished', undefined)).toBe(false);
  });
});

describe('delivery messages', () => {
  it('go to a webhook id or a url, never both or neither', () => {
    const base = { userId: 1, event: 'job.finished', body: '{}', attempt: 1 };
    expect(webhookMessage.safeParse({ ...base, webhookId: 'w' }).success).toBe(true);
    expect(webhookMessage.safeParse({ ...base, url: 'https://example.test/hook' }).success).toBe(true);
    expect(webhookMessage.safeParse(base).success).toBe(false);
    expect(webhookMessage.safeParse({ ...base, webhookId: 'w', url: 'https://example.test/hook' }).success).toBe(false);
    expect(webhookMessage.safeParse({ ...base, webhookId: 'w', event: 'job.exploded' }).success).toBe(false);
  });
});

describe('webhook view', () => {
  it('shows the settings fields and nothing of the storage record', () => {
    const record: WebhookRecord = {
      pk: 'webhook#id',
      sk: 'webhook',
      gsi1pk: 'webhooks#1',
      gsi1sk: 'x',
      id: 'id',
      userId: 1,
      url: 'https://example.test/hook',
      events: ['job.finished'],
      keyIds: ['0123456789abcdef'],
      signingSecret: 's3cr3t',
      disabled: false,
      failing: true,
      createdAt: '2026-01-02T03:04:05.678Z',
      updatedAt: '2026-01-02T03:04:06.000Z',
    };
    expect(webhookView(record, 'http://localhost:4000')).toEqual({
      id: 'id',
      url: 'https://example.test/hook',
      events: ['job.finished'],
      api_key_ids: ['0123456789abcdef'],
      disabled: false,
      failing: true,
      signing_secret: 's3cr3t',
      created_at: '2026-01-02T03:04:05+00:00',
      updated_at: '2026-01-02T03:04:06+00:00',
      links: { self: 'http://localhost:4000/v2/webhooks/id' },
    });
  });
});
