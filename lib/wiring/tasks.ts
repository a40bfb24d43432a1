/** The job and task services of one function instance, wired to the deployment's adapters. */
import { config } from '../kernel/config.js';
import { EventPublisher } from '../file-api/events/publisher.js';
import { reservationFor } from '../file-api/operations/framework/credits.js';
import { engineRegistry } from '../file-api/operations/engines.js';
import { operationDefinition } from '../file-api/operations/index.js';
import type { InputFile } from '../file-api/operations/framework/types.js';
import { TaskBilling } from '../file-api/tasks/billing.js';
import { processQueueOf } from '../file-api/operations/routing.js';
import { TaskLinks } from '../file-api/tasks/links.js';
import { Scheduler } from '../file-api/tasks/scheduler.js';
import { TaskService } from '../file-api/tasks/service.js';
import { TaskStore } from '../file-api/records/store.js';
import { WebhookNotifier } from '../file-api/webhooks/events.js';
import { listeners, webhookStore } from './webhooks.js';
import { EventBatches } from '../file-api/tasks/event-batch.js';
import { isSandbox, type JobRecord, type TaskRecord } from '../file-api/records/model.js';
import type { Presence } from '../file-api/records/listeners.js';
import { credits, usage } from './account.js';
import { bearerCredentials } from './credentials.js';
import { stateStore } from './clients.js';
import { downloadUrls } from './download-urls.js';
import { fileStore } from './files.js';
import { rootLogger } from '../kernel/root-logger.js';
import { queueClient } from './queue.js';
import { closeConnection, postToConnection, socketConnections } from './sockets.js';

let store: TaskStore | undefined;
let scheduler: Scheduler | undefined;
let service: TaskService | undefined;
let notifier: WebhookNotifier | undefined;
let links: TaskLinks | undefined;
let billing: TaskBilling | undefined;
let publisher: EventPublisher | null | undefined;
let events: EventBatches | undefined;

export const taskStore = () => (store ??= new TaskStore(stateStore()));

/** Export URLs and upload forms, signed when a task is shown. */
export const taskLinks = () =>
  (links ??= new TaskLinks({
    signer: downloadUrls,
    files: fileStore(),
    regionFiles: fileStore,
    maxUploadBytes: config().MAX_UPLOAD_BYTES,
    uploadFormSeconds: config().UPLOAD_FORM_SECONDS,
  }));

/** What event bodies (webhooks, socket frames) are made from: the tasks, their links, the base of `links.self`. */
const eventViews = () => ({ tasks: taskStore(), links: taskLinks(), publicBaseUrl: config().PUBLIC_BASE_URL });

/** Job and task events to the webhooks queue. */
export const webhookNotifier = () =>
  (notifier ??= new WebhookNotifier({
    ...eventViews(),
    webhooks: webhookStore(),
    queue: queueClient(),
    log: rootLogger().child({ component: 'webhooks' }),
    files: fileStore(),
  }));

/** Live events to socket subscribers (lib/file-api/events), or null where the stack has no socket endpoint (SOCKET_ENDPOINT). */
export const eventPublisher = (): EventPublisher | null =>
  (publisher ??= config().SOCKET_ENDPOINT
    ? new EventPublisher({
        ...eventViews(),
        connections: socketConnections(),
        post: postToConnection(),
        disconnect: closeConnection(),
        credentials: bearerCredentials(),
        credentialCacheSeconds: config().SOCKET_CREDENTIAL_CACHE_SECONDS,
        log: rootLogger().child({ component: 'sockets' }),
      })
    : null);

/**
 * Job and task events, held while a piece of work raises them and published after it with one
 * look-up of who listens (lib/file-api/tasks/event-batch.ts).
 */
export const taskEvents = () =>
  (events ??= new EventBatches({ presence: (userId, sandbox) => listeners().presence(userId, sandbox), log: rootLogger().child({ component: 'events' }) }));

/**
 * Webhooks and socket events of one change of `owner`'s, side by side: neither waits for the other,
 * neither fails (each logs its own failures). `webhooks` absent: a socket event only.
 */
const notify = (
  owner: JobRecord | TaskRecord,
  webhooks: ((n: WebhookNotifier, present: Presence) => Promise<void>) | undefined,
  sockets: (p: EventPublisher, present: Presence) => Promise<void>,
) =>
  taskEvents().raise({ userId: owner.userId, sandbox: isSandbox(owner) }, async (present) => {
    const publisher = eventPublisher();
    await Promise.all([webhooks?.(webhookNotifier(), present), publisher ? sockets(publisher, present) : undefined]);
  });

/** A task's start or progress, as task.updated (live events). */
export const taskUpdated = (task: TaskRecord) => notify(task, undefined, (p, present) => p.taskUpdated(task, present));

/** What a task reserves when it starts (lib/file-api/operations/framework/credits.ts), with this process's engines. */
const taskCost = (task: TaskRecord, inputs: readonly InputFile[]) => {
  const definition = operationDefinition(task.operation);
  return definition ? reservationFor(engineRegistry(), definition, task, inputs) : 0;
};

/** Credits reserved when a task starts and settled when it ends. */
export const taskBilling = () =>
  (billing ??= new TaskBilling({ store: taskStore(), credits: credits(), usage: usage(), estimate: taskCost, log: rootLogger().child({ component: 'billing' }) }));

export const taskScheduler = () =>
  (scheduler ??= new Scheduler({
    store: taskStore(),
    queue: queueClient(),
    log: rootLogger().child({ component: 'scheduler' }),
    route: (task, inputs) => processQueueOf(engineRegistry(), task, inputs),
    onJobEnded: (job) => notify(job, (n, present) => n.jobEnded(job, present), (p, present) => p.jobEnded(job, present)),
    onTaskEnded: (task) => notify(task, (n, present) => n.taskEnded(task, present), (p, present) => p.taskEnded(task, present)),
    onJobUpdated: (job) => notify(job, undefined, (p, present) => p.jobUpdated(job, present)),
    settle: (task) => taskBilling().settle(task),
  }));

export const taskService = () =>
  (service ??= new TaskService({
    store: taskStore(),
    scheduler: taskScheduler(),
    files: fileStore(),
    regionFiles: fileStore,
    log: rootLogger().child({ component: 'tasks' }),
    maxTaskSeconds: config().TASK_MAX_SECONDS,
    onJobCreated: (job, tasks) => notify(job, (n, present) => n.jobCreated(job, tasks, present), (p, present) => p.jobCreated(job, tasks, present)),
    onTaskCreated: (task) => notify(task, (n, present) => n.taskCreated(task, present), (p, present) => p.taskCreated(task, present)),
    credits: credits(),
  }));
