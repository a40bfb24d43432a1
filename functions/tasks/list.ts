/** GET /v2/tasks: newest first; `filter[job_id]`, `filter[status]`, `filter[operation]`, pages. */
import * as z from 'zod';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { taskStore } from '#lib/wiring/tasks.js';
import { collectPage, listBody, owns, pageQuery } from '#lib/file-api/tasks/http.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { taskResponse } from '#lib/wiring/task-response.js';

const query = pageQuery.extend({
  'filter[job_id]': z.string().optional(),
  'filter[status]': z.enum(['waiting', 'processing', 'finished', 'error']).optional(),
  'filter[operation]': z.string().optional(),
});

export const handler = fileApiRoute({ scope: 'task.read', body: 'none', schemas: { query } }, async (req) => {
  const store = taskStore();
  const { page, per_page: perPage } = req.query;
  const jobId = req.query['filter[job_id]'];
  const status = req.query['filter[status]'];
  const operation = req.query['filter[operation]'];
  const keep = (t: TaskRecord) => (!status || t.status === status) && (!operation || t.operation === operation);
  let items: TaskRecord[];
  let hasMore: boolean;
  if (jobId) {
    // A job's tasks are known by id: no scan of the caller's tasks.
    const job = await store.getJob(jobId);
    const all = job && owns(req.principal, job) ? (await store.getTasks(job.taskIds)).filter(keep) : [];
    items = all.slice((page - 1) * perPage, page * perPage);
    hasMore = all.length > page * perPage;
  } else {
    ({ items, hasMore } = await collectPage<TaskRecord>(
      (cursor) => store.listTasks(req.principal.userId, { limit: 100, cursor }, req.principal.sandbox),
      keep,
      page,
      perPage,
    ));
  }
  const data = [];
  for (const task of items) data.push(await taskResponse(task, req, { single: false }));
  return json(200, listBody(req, data, page, perPage, hasMore));
});
