/** GET /v2/jobs/{id}: a job with its tasks; `redirect=true` redirects to its export URL once finished. */
import * as z from 'zod';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { taskStore } from '#lib/wiring/tasks.js';
import { idParams, ownedJob } from '#lib/file-api/tasks/http.js';
import { jobResponse } from '#lib/wiring/job-response.js';

export const handler = fileApiRoute(
  {
    scope: 'task.read',
    body: 'none',
    schemas: { params: idParams, query: z.looseObject({ include: z.string().optional(), redirect: z.enum(['true', 'false', '1', '0']).optional() }) },
  },
  async (req) => {
    const job = await ownedJob(taskStore(), req.params.id, req.principal);
    return jobResponse(job, req, { redirect: req.query.redirect === 'true' || req.query.redirect === '1' });
  },
);

