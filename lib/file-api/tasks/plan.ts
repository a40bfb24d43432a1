/**
 * Turns a job request into a validated plan: every task's operation known and its arguments valid,
 * every `input` naming another task of the job, no cycles. All problems are reported at once, keyed
 * by field path (`tasks`, `tasks.<name>.operation`, `tasks.<name>.input`, `tasks.<name>.<argument>`),
 * before anything is stored.
 */
import * as z from 'zod';
import { ApiError } from '../../kernel/errors.js';
import { checkUrl, FetchFailedError, type AddressPolicy } from '../../adapters/net/address-policy.js';
import { checkKeptUrl } from '../../adapters/net/guarded-fetch.js';
import type { OperationDefinition } from '../operations/framework/define.js';
import { engineProblems } from '../operations/engine-check.js';
import { operationDefinition } from '../operations/index.js';

export const TASK_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Bounds that keep every record within what the state store holds (DynamoDB items are at most 400 KB):
 * a job names at most this many tasks, and a task's arguments take at most this many bytes as JSON
 * (the content of import/raw and import/base64 is stored as a file, so it does not count).
 */
export const MAX_TASKS_PER_JOB = 200;
export const MAX_ARGUMENT_BYTES = 64 * 1024;

export interface PlannedTask {
  name: string;
  spec: OperationDefinition;
  /** The arguments as stored and echoed in `payload` (`operation` included, `input` as a list). */
  payload: Record<string, unknown>;
  inputNames: string[];
}

export interface JobPlan {
  tasks: PlannedTask[];
  tag: string | null;
  webhookUrl: string | null;
}

type Errors = Record<string, string[]>;
const add = (errors: Errors, field: string, message: string) => (errors[field] ??= []).push(message);

/** Validates one task's arguments against its operation; used for jobs and standalone tasks alike. */
export function validateTask(
  raw: unknown,
  prefix: string,
  errors: Errors,
  operationOverride?: string,
): { spec: OperationDefinition; payload: Record<string, unknown>; inputs: string[] } | undefined {
  const field = (f: string) => (prefix ? `${prefix}.${f}` : f);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    add(errors, prefix || 'body', 'must be an object.');
    return undefined;
  }
  const obj = raw as Record<string, unknown>;
  const operation = operationOverride ?? obj.operation;
  if (typeof operation !== 'string' || !operation) {
    add(errors, field('operation'), 'The operation field is required.');
    return undefined;
  }
  const spec = operationDefinition(operation);
  if (!spec) {
    add(errors, field('operation'), `The operation ${operation} is not supported.`);
    return undefined;
  }
  const parsed = spec.schema.safeParse(obj);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) add(errors, field(issue.path.map(String).join('.') || 'body'), issue.message);
    return undefined;
  }
  const problems = engineProblems(spec, parsed.data as Record<string, unknown>);
  for (const problem of problems) add(errors, field(problem.field), problem.message);
  if (problems.length) return undefined;
  const payload: Record<string, unknown> = { ...(parsed.data as Record<string, unknown>), operation };
  const { file: staged, ...rest } = payload;
  // Content sent with the request is stored as a file at creation: it does not count.
  const size = Buffer.byteLength(JSON.stringify(spec.creation?.kind === 'content' ? rest : { ...rest, file: staged }));
  if (size > MAX_ARGUMENT_BYTES) {
    add(errors, prefix || 'body', `The task's arguments take ${size} bytes; at most ${MAX_ARGUMENT_BYTES} are allowed (send files with import/upload, import/url or import/base64).`);
    return undefined;
  }
  const inputs = (payload.input as string[] | undefined) ?? [];
  if (spec.inputs === 'required' && inputs.length === 0) add(errors, field('input'), 'The input field is required.');
  if (spec.inputs === 'none' && inputs.length > 0) add(errors, field('input'), `The operation ${operation} takes no input.`);
  return { spec, payload, inputs };
}

const jobBody = z.object({
  tag: z.string().max(1000).nullish(),
  webhook_url: z.string().url().refine((u) => /^https?:/i.test(u), 'must be an http or https URL').nullish(),
});

/**
 * `urlPolicy` is the address policy a job's `webhook_url` must pass when the job is created (scheme
 * http/https, no loopback, private, link-local or metadata address literal, no `localhost` or metadata
 * name); the default is the strictest. Names are not resolved here: the delivery's guarded client
 * checks every address it dials; `checkWebhookUrl` adds what the name resolves to now.
 */
export function planJob(body: unknown, urlPolicy: AddressPolicy = {}): JobPlan {
  const errors: Errors = {};
  const obj = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const meta = jobBody.safeParse(obj);
  if (!meta.success) for (const i of meta.error.issues) add(errors, i.path.map(String).join('.'), i.message);
  else if (meta.data.webhook_url) {
    try {
      checkUrl(meta.data.webhook_url, urlPolicy);
    } catch (err) {
      if (!(err instanceof FetchFailedError)) throw err;
      add(errors, 'webhook_url', err.message);
    }
  }

  const rawTasks = obj.tasks;
  if (!rawTasks || typeof rawTasks !== 'object' || Array.isArray(rawTasks) || Object.keys(rawTasks).length === 0) {
    add(errors, 'tasks', 'The tasks field is required and must name at least one task.');
    throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields: errors });
  }
  if (Object.keys(rawTasks).length > MAX_TASKS_PER_JOB) {
    add(errors, 'tasks', `A job holds at most ${MAX_TASKS_PER_JOB} tasks; this one names ${Object.keys(rawTasks).length}.`);
    throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields: errors });
  }

  const tasks: PlannedTask[] = [];
  for (const [name, raw] of Object.entries(rawTasks as Record<string, unknown>)) {
    if (!TASK_NAME.test(name)) {
      add(errors, `tasks.${name}`, 'A task name may only hold letters, digits, dashes and underscores.');
      continue;
    }
    const checked = validateTask(raw, `tasks.${name}`, errors);
    if (checked) tasks.push({ name, spec: checked.spec, payload: checked.payload, inputNames: checked.inputs });
  }

  const names = new Set(Object.keys(rawTasks as object));
  for (const t of tasks) {
    for (const input of t.inputNames) {
      if (input === t.name) add(errors, `tasks.${t.name}.input`, 'A task cannot be its own input.');
      else if (!names.has(input)) add(errors, `tasks.${t.name}.input`, `There is no task named ${input} in this job.`);
    }
  }
  if (!Object.keys(errors).length) {
    const cycle = findCycle(tasks);
    if (cycle) add(errors, `tasks.${cycle[0]}.input`, `The inputs form a cycle: ${cycle.join(' → ')}.`);
  }
  if (Object.keys(errors).length) throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields: errors });
  return { tasks, tag: meta.data?.tag ?? null, webhookUrl: meta.data?.webhook_url ?? null };
}

/**
 * A planned job's `webhook_url` with its name resolved (`checkKeptUrl`): a name that resolves to a
 * loopback, private or metadata address is a 422 naming `webhook_url`, as a literal address is.
 */
export async function checkWebhookUrl(plan: JobPlan, urlPolicy: AddressPolicy = {}): Promise<void> {
  if (!plan.webhookUrl) return;
  try {
    await checkKeptUrl(plan.webhookUrl, urlPolicy);
  } catch (err) {
    if (!(err instanceof FetchFailedError)) throw err;
    throw new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields: { webhook_url: [err.message] } });
  }
}

/** A cycle among the tasks' inputs, as the list of names around it, if there is one. */
export function findCycle(tasks: Pick<PlannedTask, 'name' | 'inputNames'>[]): string[] | undefined {
  const inputs = new Map(tasks.map((t) => [t.name, t.inputNames]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (state.get(name) === 'done') return undefined;
    if (state.get(name) === 'visiting') return [...path.slice(path.indexOf(name)), name];
    state.set(name, 'visiting');
    path.push(name);
    for (const next of inputs.get(name) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const t of tasks) {
    const cycle = visit(t.name);
    if (cycle) return cycle;
  }
  return undefined;
}
