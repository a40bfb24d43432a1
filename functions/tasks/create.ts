/** POST /v2/{operation}: one standalone task (`input` names task ids). */
import { apiUrlOf } from '#lib/http/api-base.js';
import * as z from 'zod';
import { ApiError } from '#lib/errors.js';
import { fileApiRoute } from '#lib/http/file-api.js';
import { requestRegion } from '#lib/platform/regions.js';
import { json } from '#lib/http/types.js';
import { taskLinks, taskService } from '#lib/platform/tasks.js';
import { validateTask } from '#lib/tasks/plan.js';
import { parseInclude, taskView } from '#lib/tasks/views.js';
import { trimEnd } from '#lib/text.js';

export const handler = fileApiRoute(
  { scope: 'task.write', rateLimited: true, schemas: { params: z.object({ operation: z.string().min(1) }) } },
  async (req) => {
    const operation = trimEnd(req.params.operation, '/');
    const errors: Record<string, string[]> = {};
    const checked = validateTask(req.body ?? {}, '', errors, operation);
    if (!checked && errors.operation) throw new ApiError('NOT_FOUND', `There is no operation ${operation}.`);
    if (!checked || Object.keys(errors).length) throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields: errors });
    const task = await taskService().createTask(req.principal.userId, checked.spec, checked.payload, checked.inputs, {
      keyId: req.principal.keyId,
      baseUrl: req.baseUrl,
      region: await requestRegion(req),
      sandbox: req.principal.sandbox,
    });
    const links = await taskLinks().for([task], req.baseUrl);
    return json(201, { data: taskView(task, { baseUrl: apiUrlOf(req), include: parseInclude(req.query.include), links }) });
  },
);
