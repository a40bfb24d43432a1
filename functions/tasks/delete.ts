/** DELETE /v2/tasks/{id}: the task and its files (its export URLs stop working). */
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { noContent } from '#lib/http/types.js';
import { taskService, taskStore } from '#lib/wiring/tasks.js';
import { idParams, ownedTask } from '#lib/file-api/tasks/http.js';

export const handler = fileApiRoute({ scope: 'task.write', body: 'none', schemas: { params: idParams } }, async (req) => {
  await taskService().deleteTask(await ownedTask(taskStore(), req.params.id, req.principal));
  return noContent();
});
