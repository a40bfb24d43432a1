/** The webhook store of one function instance, and the per-user marks of who listens to events. */
import { config } from '../kernel/config.js';
import { stateStore } from './clients.js';
import { Listeners } from '../file-api/records/listeners.js';
import { WebhookStore } from '../file-api/webhooks/store.js';
import { socketConnections } from './sockets.js';

let store: WebhookStore | undefined;
let settings: WebhookStore | undefined;
let marks: Listeners | undefined;

/**
 * Whether a user's events may have listeners (lib/file-api/records/listeners.ts); a user without the
 * mark yet is looked up once the full way: their endpoints, their socket subscriptions.
 */
export const listeners = (): Listeners =>
  (marks ??= new Listeners(stateStore(), async (userId, sandbox) => {
    const [hooks, subs] = await Promise.all([webhookStore().all(userId, sandbox), config().SOCKET_ENDPOINT ? socketConnections().subscribersOf(userId, sandbox) : []]);
    return { webhooks: hooks.length, sockets: subs.length > 0 };
  }));

/** Endpoints to read, deliver to or delete (a deletion counts itself down without the look-up). */
export const webhookStore = (): WebhookStore => (store ??= new WebhookStore(stateStore()));

/** Endpoints to create: each counted before it is stored, so that events look for it. */
export const webhookSettings = (): WebhookStore => (settings ??= new WebhookStore(stateStore(), listeners()));
