/** POST /v2/tasks/{id}/cancel: a waiting or processing task ends with `CANCELLED`. */
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { taskService, taskStore } from '#lib/wiring/tasks.js';
import { idParams, ownedTask } from '#lib/file-api/tasks/http.js';
import { taskResponse } from '#lib/wiring/task-response.js';

export const handler = fileApiRoute({ scope: 'task.write', body: 'none', schemas: { params: idParams } }, async (req) => {
  const cancelled = await taskService().cancel(await ownedTask(taskStore(), req.params.id, req.principal));
  return json(200, { data: await taskResponse(cancelled, req) });
});
