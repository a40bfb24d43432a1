/** The webhook store of one function instance. */
import { stateStore } from '../platform/clients.js';
import { WebhookStore } from './store.js';

let store: WebhookStore | undefined;

export const webhookStore = () => (store ??= new WebhookStore(stateStore()));
