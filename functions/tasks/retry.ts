/** POST /v2/tasks/{id}/retry: a new task with the same arguments and inputs. */
import { notFound } from '#lib/kernel/errors.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { operationDefinition } from '#lib/file-api/operations/index.js';
import { taskService, taskStore } from '#lib/wiring/tasks.js';
import { idParams, ownedTask } from '#lib/file-api/tasks/http.js';
import { taskResponse } from '#lib/wiring/task-response.js';

export const handler = fileApiRoute({ scope: 'task.write', rateLimited: true, body: 'none', schemas: { params: idParams } }, async (req) => {
  const task = await ownedTask(taskStore(), req.params.id, req.principal);
  const spec = operationDefinition(task.operation);
  if (!spec) throw notFound(`The operation ${task.operation} is no longer available.`);
  return json(201, { data: await taskResponse(await taskService().retry(task, spec), req) });
});
