/** POST /v2/{operation}: one standalone task (`input` names task ids). */
import * as z from 'zod';
import { ApiError } from '#lib/errors.js';
import { fileApiRoute } from '#lib/http/file-api.js';
import { requestRegion } from '#lib/platform/regions.js';
import { json } from '#lib/http/types.js';
import { taskService } from '#lib/platform/tasks.js';
import { taskResponse } from '#lib/tasks/task-response.js';
import { validateTask } from '#lib/tasks/plan.js';
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
    return json(201, { data: await taskResponse(task, req) });
  },
);
