/** POST /v2/{operation}: one standalone task (`input` names task ids). */
import * as z from 'zod';
import { ApiError } from '#lib/kernel/errors.js';
import { fileApiRoute } from '#lib/wiring/file-api.js';
import { requestRegion } from '#lib/wiring/regions.js';
import { json } from '#lib/http/types.js';
import { taskService } from '#lib/wiring/tasks.js';
import { taskResponse } from '#lib/wiring/task-response.js';
import { validateTask } from '#lib/file-api/tasks/plan.js';
import { trimEnd } from '#lib/kernel/text.js';

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
