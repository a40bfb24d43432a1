/** A job answer shared by the get, wait and synchronous-create endpoints. */
import { apiUrlOf } from '../http/api-base.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { json } from '../http/types.js';
import { taskLinks, taskStore } from './tasks.js';
import { servesDownloads } from '../file-api/tasks/links.js';
import type { JobRecord } from '../file-api/records/model.js';
import { jobView, parseInclude } from '../file-api/tasks/views.js';

/**
 * The pause before each poll of `waitFor`: 50 ms at first, a quarter longer each time, at most 1 s.
 * A job that ends soon is seen soon (a 300 ms job is answered within about 120 ms of its end), and a
 * long wait costs about one read a second: a fixed 250 ms made 100 reads per 25 s wait, and with 200
 * waiting clients those reads were most of the local platform's work.
 */
export const POLL_FIRST_MS = 50;
export const POLL_GROWTH = 1.25;
export const POLL_MAX_MS = 1000;

/** Polls until `done` holds or the time is up; returns the last value read. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, maxMs: number): Promise<T> {
  const deadline = Date.now() + maxMs;
  let pause = POLL_FIRST_MS;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - Date.now()))));
    pause = Math.min(POLL_MAX_MS, pause * POLL_GROWTH);
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
