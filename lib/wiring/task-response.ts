/**
 * A task as an endpoint answers it, with what `include` asks for; `single`: an answer about this one
 * task, which includes `retries` and `depends_on_tasks` unasked (views.ts `singleTaskIncludes`), unlike a list's items.
 */
import { apiUrlOf } from '../http/api-base.js';
import type { HttpRequest } from '../http/types.js';
import { taskLinks, taskStore } from './tasks.js';
import type { TaskRecord } from '../file-api/records/model.js';
import { parseInclude, singleTaskIncludes, taskView } from '../file-api/tasks/views.js';

export async function taskResponse(task: TaskRecord, req: HttpRequest<unknown, unknown>, opts: { single: boolean } = { single: true }) {
  const asked = parseInclude((req.query as { include?: string }).include);
  const include = opts.single ? singleTaskIncludes(asked) : asked;
  const store = taskStore();
  const related = include.has('depends_on_tasks') && task.dependsOn.length ? new Map((await store.getTasks(task.dependsOn)).map((t) => [t.id, t])) : undefined;
  const job = include.has('job') && task.jobId ? await store.getJob(task.jobId) : undefined;
  const links = await taskLinks().for([task, ...(related?.values() ?? [])], req.baseUrl);
  return taskView(task, { baseUrl: apiUrlOf(req), include, related, job, links });
}
