/**
 * GET /sync/v2/jobs/{id} and GET /v2/jobs/{id}/wait: answers once the job has ended, or with its
 * current state when SYNC_MAX_WAIT_SECONDS (25 s, below the gateway's 30 s limit) have passed or the
 * stage's wait budget is spent (WAIT_BUDGET).
 */
import * as z from 'zod';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { taskStore } from '#lib/wiring/tasks.js';
import { idParams, ownedJob } from '#lib/file-api/tasks/http.js';
import { jobResponse, waitWithinBudget } from '#lib/wiring/job-response.js';

export const handler = fileApiRoute(
  { scope: 'task.read', body: 'none', schemas: { params: idParams, query: z.looseObject({ include: z.string().optional() }) } },
  async (req) => {
    const store = taskStore();
    const job = await ownedJob(store, req.params.id, req.principal);
    const ended = await waitWithinBudget<typeof job | undefined>(job, () => store.getJob(job.id), (j) => !j || Boolean(j.endedAt));
    return jobResponse(ended ?? job, req, { redirect: false });
  },
);
