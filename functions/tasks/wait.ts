/**
 * GET /sync/v2/tasks/{id} and GET /v2/tasks/{id}/wait: answers once the task has ended, or with its
 * current state after SYNC_MAX_WAIT_SECONDS.
 */
import * as z from 'zod';
import { config } from '#lib/kernel/config.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { taskStore } from '#lib/wiring/tasks.js';
import { idParams, ownedTask } from '#lib/file-api/tasks/http.js';
import { waitFor } from '#lib/wiring/job-response.js';
import { isEnded } from '#lib/file-api/records/model.js';
import { taskResponse } from '#lib/wiring/task-response.js';

export const handler = fileApiRoute(
  { scope: 'task.read', body: 'none', schemas: { params: idParams, query: z.looseObject({ include: z.string().optional() }) } },
  async (req) => {
    const store = taskStore();
    const task = await ownedTask(store, req.params.id, req.principal);
    const ended = await waitFor(() => store.getTask(task.id), (t) => !t || isEnded(t.status), config().SYNC_MAX_WAIT_SECONDS * 1000);
    return json(200, { data: await taskResponse(ended ?? task, req) });
  },
);
