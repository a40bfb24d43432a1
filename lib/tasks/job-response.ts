/** A job answer shared by the get, wait and synchronous-create endpoints. */
import { apiUrlOf } from '../http/api-base.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { json } from '../http/types.js';
import { taskLinks, taskStore } from '../platform/tasks.js';
import { servesDownloads } from './links.js';
import type { JobRecord } from './model.js';
import { jobView, parseInclude } from './views.js';

/** Polls until `done` holds or the time is up; returns the last value read. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, maxMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + maxMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, Math.min(everyMs, Math.max(0, deadline - Date.now()))));
    value = await read();
  }
  return value;
}

export async function jobResponse(
  job: JobRecord,
  req: HttpRequest<unknown, { include?: string }>,
  opts: { redirect: boolean; status?: number },
): Promise<HttpResponse> {
  const tasks = await taskStore().getTasks(job.taskIds);
  const links = await taskLinks().for(tasks, req.baseUrl);
  if (opts.redirect && job.status === 'finished') {
    const exported = tasks.find(servesDownloads);
    const url = exported && links.fileUrl(exported, 0);
    if (url) return { status: 302, headers: { location: url } };
  }
  return json(opts.status ?? 200, { data: jobView(job, tasks, { baseUrl: apiUrlOf(req), include: parseInclude(req.query.include), links }) });
}
