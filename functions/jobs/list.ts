/** GET /v2/jobs: the caller's jobs, newest first; `filter[status]`, `filter[tag]`, `include=tasks`. */
import { apiUrlOf } from '#lib/http/api-base.js';
import * as z from 'zod';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { json } from '#lib/http/types.js';
import { taskLinks, taskStore } from '#lib/wiring/tasks.js';
import { collectPage, listBody, pageQuery } from '#lib/file-api/tasks/http.js';
import type { JobRecord } from '#lib/file-api/records/model.js';
import { jobView, parseInclude } from '#lib/file-api/tasks/views.js';

const query = pageQuery.extend({
  'filter[status]': z.enum(['waiting', 'processing', 'finished', 'error']).optional(),
  'filter[tag]': z.string().optional(),
});

export const handler = fileApiRoute({ scope: 'task.read', body: 'none', schemas: { query } }, async (req) => {
  const store = taskStore();
  const { page, per_page: perPage } = req.query;
  const status = req.query['filter[status]'];
  const tag = req.query['filter[tag]'];
  const { items, hasMore } = await collectPage<JobRecord>(
    (cursor) => store.listJobs(req.principal.userId, { limit: 100, cursor }, req.principal.sandbox),
    (job) => (!status || job.status === status) && (tag === undefined || job.tag === tag),
    page,
    perPage,
  );
  const include = parseInclude(req.query.include);
  const data = [];
  for (const job of items) {
    const tasks = include.has('tasks') ? await store.getTasks(job.taskIds) : undefined;
    const links = await taskLinks().for(tasks ?? [], req.baseUrl);
    data.push(jobView(job, tasks, { baseUrl: apiUrlOf(req), include, links }));
  }
  return json(200, listBody(req, data, page, perPage, hasMore));
});
