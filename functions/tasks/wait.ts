/**
 * GET /sync/v2/tasks/{id} and GET /v2/tasks/{id}/wait: answers once the task has ended, or with its
 * current state after SYNC_MAX_WAIT_SECONDS or when the stage's wait budget is spent (WAIT_BUDGET).
 */
import * as z from 'zod';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { taskStore } from '#lib/wiring/tasks.js';
import { idParams, ownedTask } from '#lib/file-api/tasks/http.js';
import { waitWithinBudget } from '#lib/wiring/job-response.js';
import { isEnded } from '#lib/file-api/records/model.js';
import { taskResponse } from '#lib/wiring/task-response.js';

export const handler = fileApiRoute(
  { scope: 'task.read', body: 'none', schemas: { params: idParams, query: z.looseObject({ include: z.string().optional() }) } },
  async (req) => {
    const store = taskStore();
    const task = await ownedTask(store, req.params.id, req.principal);
    const ended = await waitWithinBudget<typeof task | undefined>(task, () => store.getTask(task.id), (t) => !t || isEnded(t.status));
    return json(200, { data: await taskResponse(ended ?? task, req) });
  },
);
