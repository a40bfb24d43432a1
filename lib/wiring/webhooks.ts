/** The webhook store of one function instance. */
import { stateStore } from './clients.js';
import { WebhookStore } from '../file-api/webhooks/store.js';

let store: WebhookStore | undefined;

export const webhookStore = () => (store ??= new WebhookStore(stateStore()));
