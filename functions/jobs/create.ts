/** POST /v2/jobs: a job from a graph of named tasks. */
import { apiUrlOf } from '#lib/http/api-base.js';
import { config } from '#lib/kernel/config.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { requestRegion } from '#lib/wiring/regions.js';
import { json } from '#lib/http/types.js';
import { userFetchPolicy } from '#lib/adapters/net/address-policy.js';
import { taskEvents, taskLinks, taskService } from '#lib/wiring/tasks.js';
import { inlineRunsFor } from '#lib/wiring/inline-runs.js';
import { checkWebhookUrl, planJob } from '#lib/file-api/tasks/plan.js';
import { jobView, parseInclude } from '#lib/file-api/tasks/views.js';

export const handler = fileApiRoute({ scope: 'task.write', rateLimited: true, bodyRequired: true }, async (req) => {
  const policy = userFetchPolicy(config());
  const plan = planJob(req.body, policy);
  await checkWebhookUrl(plan, policy);
  const origin = { keyId: req.principal.keyId, baseUrl: req.baseUrl, region: await requestRegion(req), sandbox: req.principal.sandbox };
  // Tasks that need no engine run here before the answer (a job of only such tasks has ended by then),
  // and the events of all of it go out together after it (lib/file-api/tasks/inline.ts, event-batch.ts).
  const inline = inlineRunsFor(req.log);
  const { job, tasks } = await taskEvents().hold(() => taskService().createJob(req.principal.userId, plan, undefined, origin, inline));
  const links = await taskLinks().for(tasks, req.baseUrl);
  return json(201, { data: jobView(job, tasks, { baseUrl: apiUrlOf(req), include: parseInclude(req.query.include), links }) });
});
