/** A task as an endpoint answers it, with what `include` asks for. */
import { apiUrlOf } from '../http/api-base.js';
import type { HttpRequest } from '../http/types.js';
import { taskLinks, taskStore } from '../platform/tasks.js';
import type { TaskRecord } from './model.js';
import { parseInclude, taskView } from './views.js';

export async function taskResponse(task: TaskRecord, req: HttpRequest<unknown, unknown>) {
  const include = parseInclude((req.query as { include?: string }).include);
  const store = taskStore();
  const related = include.has('depends_on_tasks') ? new Map((await store.getTasks(task.dependsOn)).map((t) => [t.id, t])) : undefined;
  const job = include.has('job') && task.jobId ? await store.getJob(task.jobId) : undefined;
  const links = await taskLinks().for([task, ...(related?.values() ?? [])], req.baseUrl);
  return taskView(task, { baseUrl: apiUrlOf(req), include, related, job, links });
}
