/** The job and task services of one function instance, wired to the platform's adapters. */
import { config } from '../config.js';
import { Scheduler } from '../tasks/scheduler.js';
import { TaskService } from '../tasks/service.js';
import { TaskStore } from '../tasks/store.js';
import { WebhookNotifier } from '../webhooks/events.js';
import { webhookStore } from '../webhooks/platform.js';
import { stateStore } from './clients.js';
import { fileStore } from './files.js';
import { rootLogger } from './logger.js';
import { queueClient } from './queue.js';

let store: TaskStore | undefined;
let scheduler: Scheduler | undefined;
let service: TaskService | undefined;
let notifier: WebhookNotifier | undefined;

export const taskStore = () => (store ??= new TaskStore(stateStore()));

/** Job and task events to the webhooks queue. */
export const webhookNotifier = () =>
  (notifier ??= new WebhookNotifier({
    webhooks: webhookStore(),
    tasks: taskStore(),
    queue: queueClient(),
    log: rootLogger().child({ component: 'webhooks' }),
    publicBaseUrl: config().PUBLIC_BASE_URL,
    files: fileStore(),
  }));

export const taskScheduler = () =>
  (scheduler ??= new Scheduler({
    store: taskStore(),
    queue: queueClient(),
    log: rootLogger().child({ component: 'scheduler' }),
    onJobEnded: (job) => webhookNotifier().jobEnded(job),
    onTaskEnded: (task) => webhookNotifier().taskEnded(task),
  }));

export const taskService = () =>
  (service ??= new TaskService({
    store: taskStore(),
    scheduler: taskScheduler(),
    files: fileStore(),
    log: rootLogger().child({ component: 'tasks' }),
    maxUploadBytes: config().MAX_UPLOAD_BYTES,
    maxTaskSeconds: config().TASK_MAX_SECONDS,
    onJobCreated: (job, tasks) => webhookNotifier().jobCreated(job, tasks),
    onTaskCreated: (task) => webhookNotifier().taskCreated(task),
  }));
