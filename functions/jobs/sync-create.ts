/**
 * POST /sync/v2/jobs: creates a job and answers once it has ended (or when the wait cap passes, or at
 * once with the job as created when the stage's wait budget is spent).
 * With `redirect: true` the answer is a 302 to the job's first export URL.
 */
import * as z from 'zod';
import { config } from '#lib/kernel/config.js';
import { invalid } from '#lib/kernel/errors.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { requestRegion } from '#lib/wiring/regions.js';
import { userFetchPolicy } from '#lib/adapters/net/address-policy.js';
import { taskService, taskStore } from '#lib/wiring/tasks.js';
import { jobResponse, waitWithinBudget } from '#lib/wiring/job-response.js';
import { checkWebhookUrl, planJob } from '#lib/file-api/tasks/plan.js';
import { OPERATIONS } from '#lib/file-api/operations/index.js';

export const handler = fileApiRoute(
  { scope: 'task.write', rateLimited: true, bodyRequired: true, schemas: { query: z.looseObject({ include: z.string().optional() }) } },
  async (req) => {
    const body = req.body as Record<string, unknown>;
    const redirect = body?.redirect === true;
    const policy = userFetchPolicy(config());
    const plan = planJob(body, policy);
    await checkWebhookUrl(plan, policy);
    if (redirect && !plan.tasks.some((t) => t.spec.servesDownloads)) {
      const exporting = OPERATIONS.filter((d) => 'servesDownloads' in d && d.servesDownloads).map((d) => d.name);
      throw invalid('The given data was invalid.', { redirect: [`redirect needs an ${exporting.join(' or ')} task in the job.`] });
    }
    const { job } = await taskService().createJob(req.principal.userId, plan, undefined, {
      keyId: req.principal.keyId,
      baseUrl: req.baseUrl,
      region: await requestRegion(req),
      sandbox: req.principal.sandbox,
    });
    const store = taskStore();
    const ended = await waitWithinBudget<typeof job | undefined>(job, () => store.getJob(job.id), (j) => !j || Boolean(j.endedAt));
    return jobResponse(ended ?? job, req, { redirect, status: 201 });
  },
);
