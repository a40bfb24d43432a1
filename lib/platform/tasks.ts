/** The job and task services of one function instance, wired to the platform's adapters. */
import { config } from '../config.js';
import { Scheduler } from '../tasks/scheduler.js';
import { TaskService } from '../tasks/service.js';
import { TaskStore } from '../tasks/store.js';
import { stateStore } from './clients.js';
import { fileStore } from './files.js';
import { rootLogger } from './logger.js';
import { queueClient } from './queue.js';

let store: TaskStore | undefined;
let scheduler: Scheduler | undefined;
let service: TaskService | undefined;

export const taskStore = () => (store ??= new TaskStore(stateStore()));

export const taskScheduler = () =>
  (scheduler ??= new Scheduler({ store: taskStore(), queue: queueClient(), log: rootLogger().child({ component: 'scheduler' }) }));

export const taskService = () =>
  (service ??= new TaskService({
    store: taskStore(),
    scheduler: taskScheduler(),
    files: fileStore(),
    log: rootLogger().child({ component: 'tasks' }),
    maxUploadBytes: config().MAX_UPLOAD_BYTES,
  }));
