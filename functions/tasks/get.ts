/** GET /v2/tasks/{id}: a task; `include=payload,depends_on_tasks,job,retries`. */
import * as z from 'zod';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { taskStore } from '#lib/wiring/tasks.js';
import { idParams, ownedTask } from '#lib/file-api/tasks/http.js';
import { taskResponse } from '#lib/wiring/task-response.js';

export const handler = fileApiRoute(
  { scope: 'task.read', body: 'none', schemas: { params: idParams, query: z.looseObject({ include: z.string().optional() }) } },
  async (req) => json(200, { data: await taskResponse(await ownedTask(taskStore(), req.params.id, req.principal), req) }),
);
