/** DELETE /v2/jobs/{id}: the job, its tasks and their files. */
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { noContent } from '#lib/http/types.js';
import { taskService, taskStore } from '#lib/wiring/tasks.js';
import { idParams, ownedJob } from '#lib/file-api/tasks/http.js';

export const handler = fileApiRoute({ scope: 'task.write', body: 'none', schemas: { params: idParams } }, async (req) => {
  const job = await ownedJob(taskStore(), req.params.id, req.principal);
  await taskService().deleteJob(job);
  return noContent();
});
