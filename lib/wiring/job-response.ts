/** A job answer shared by the get, wait and synchronous-create endpoints. */
import { config } from '../kernel/config.js';
import { apiUrlOf } from '../http/api-base.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { json } from '../http/types.js';
import { taskLinks, taskStore } from './tasks.js';
import { once, rootLogger, stateStore } from './clients.js';
import { WaitBudget } from '../file-api/tasks/wait-budget.js';
import { servesDownloads } from '../file-api/tasks/links.js';
import type { JobRecord } from '../file-api/records/model.js';
import { jobView, parseInclude } from '../file-api/tasks/views.js';

/**
 * The pause before each poll of `waitFor`: 50 ms at first, a quarter longer each time, at most 1 s, so
 * an end is seen within about a quarter of the time waited (a 300 ms job within about 120 ms of its end)
 * and a long wait reads about once a second.
 *
 * Why not fewer reads: what a wait costs is the function it holds, not its reads. A read of a job is half
 * a read unit ($0.0625 per million); a second of a 512 MB function held is $0.0000083, as much as some
 * 130 reads. The pause that costs least balances the reads against the time an end is answered late
 * (about half a pause): about the square root of 2 × time waited × read cost / held cost, 0.12 s after
 * 1 s, 0.6 s after 25 s. This schedule pauses 2–3× longer than that, as the reads also count against the
 * table's capacity; a longer pause still would save cents per million waits and hold every function
 * longer. What saves is not holding: a wait on an ended job answers from the handler's own read, and a
 * wait beyond the budget answers at once (waitWithinBudget). Reads per wait besides the handler's: 0 for
 * an ended job, 5 for one that ends 0.3 s later, 9 after 1 s, 15 after 5 s, 35 for a wait of 25 s that
 * sees no end (36 before the handler's read was reused; 101 with a fixed 250 ms).
 */
export const POLL_FIRST_MS = 50;
export const POLL_GROWTH = 1.25;
export const POLL_MAX_MS = 1000;

/**
 * Polls until `done` holds or the time is up; returns the last value read. With `current` (a value the
 * caller has just read) the first read is skipped.
 */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, maxMs: number, current?: { value: T }): Promise<T> {
  const deadline = Date.now() + maxMs;
  let pause = POLL_FIRST_MS;
  let value = current ? current.value : await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - Date.now()))));
    pause = Math.min(POLL_MAX_MS, pause * POLL_GROWTH);
    value = await read();
  }
  return value;
}

/** The stage's wait budget: windows longer than the longest wait, so a hold is counted in every window it spans. */
const waitBudget = once(() => new WaitBudget(stateStore(), { budget: config().WAIT_BUDGET, windowSeconds: Math.ceil(config().SYNC_MAX_WAIT_SECONDS) + 5 }));

/**
 * What a wait endpoint answers with: `current` (just read) when it has ended already or the stage's wait
 * budget is spent (a wait that timed out answers the same way, and the SDKs wait again), else what
 * `waitFor` sees within SYNC_MAX_WAIT_SECONDS, holding a place of the budget meanwhile.
 */
export async function waitWithinBudget<T>(current: T, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  if (done(current)) return current;
  const hold = await waitBudget().take();
  if (!hold) return current;
  try {
    const counted = async () => (await hold.carry(), read());
    return await waitFor(counted, done, config().SYNC_MAX_WAIT_SECONDS * 1000, { value: current });
  } finally {
    // A release that fails leaves the place counted until its window ends (lib/file-api/tasks/wait-budget.ts).
    await hold.release().catch((error: unknown) => rootLogger().warn('wait budget release failed', { error }));
  }
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
