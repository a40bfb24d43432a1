/**
 * `GET /s/{id}?job=…[&cache_key=…]&s=…`: a signed URL's request. Checked in this order: the base
 * exists and its owner is active (else 404), the URL carries a signature (else 401) that signs it
 * under the base's secret (else 403), the job decodes and validates as `POST /v2/jobs` would and
 * exports with export/url (else 422). The job then runs as the base's owner (credits, rate limit of
 * the key that made the base, sandbox rules), and the answer is a 302 to its first export URL.
 *
 * With `cache_key`, the same job and key answer from the job that ran first while it lives (24 h):
 * concurrent first requests agree on one job through a conditional write of the cache entry, made
 * before the job is created under the id it names. A cached job that failed or is gone runs again.
 *
 * The gateway cuts a request at 30 s; a job still running after `SIGNED_URL_WAIT_SECONDS` is answered
 * with a 302 to the same URL, so that the client waits again on the same job: a cached URL finds it
 * through its cache entry, an uncached one through `&run=<job id>` appended after the signature (not
 * signed, but honoured only for a job this very URL started).
 */
import { config } from '../kernel/config.js';
import { ApiError, notFound } from '../kernel/errors.js';
import { rateLimiter } from './file-api.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { rateHeaders } from '../access/auth/rate-limit.js';
import { isActiveUser, userKey, type UserRecord } from '../access/auth/users.js';
import { userFetchPolicy } from '../adapters/net/address-policy.js';
import { stateStore } from './clients.js';
import { requestRegion } from './regions.js';
import { taskLinks, taskService, taskStore } from './tasks.js';
import { isExpired } from '../adapters/state/port.js';
import { waitFor } from './job-response.js';
import type { JobRecord } from '../file-api/records/model.js';
import { checkWebhookUrl, planJob, type JobPlan } from '../file-api/tasks/plan.js';
import { signedUrlStore } from './signed-urls.js';
import { runDigest, type SignedUrlRecord, type SignedUrlStore } from '../file-api/signed-urls/store.js';
import { decodeSignedJob, signedParameters, splitSignedQuery, verifiedUrl } from '../file-api/signed-urls/wire.js';
import { randomUUID } from 'node:crypto';

/** The path signed-URL bases are served under: `{public base}/s/{id}`. */
export const SIGNED_URL_PATH = '/s';
/** How long a cache entry whose job does not exist yet is taken for a job being created by another request. */
const CLAIM_GRACE_MS = 15_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const invalidJob = (message: string) => new ApiError('INVALID_ARGUMENT', 'The given data was invalid.', { fields: { job: [message] } });

export async function signedUrlRequest(req: HttpRequest<unknown, Record<string, string>, { id?: string }>): Promise<HttpResponse> {
  const id = req.params.id ?? '';
  const store = await signedUrlStore();
  const base = UUID.test(id) ? await store.get(id) : undefined;
  if (!base || !isActiveUser(base.userId, await stateStore().get<UserRecord>(userKey(base.userId)))) throw notFound('No signed URL base here.');

  const query = splitSignedQuery(req.rawQuery ?? '');
  if (!query) throw new ApiError('UNAUTHENTICATED', 'This URL carries no signature (the s parameter, last).');
  const secret = store.secretOf(base);
  if (!secret) throw new ApiError('PERMISSION_DENIED', 'This signed URL base can no longer be verified (the service key changed); create a new one.');
  const signed = verifiedUrl(secret, base.url, query);
  if (signed === undefined) throw new ApiError('PERMISSION_DENIED', 'Invalid signature.');

  const params = signedParameters(signed);
  const { json, job: body } = decodeSignedJob(params.job);
  const policy = userFetchPolicy(config());
  const plan = planJob(body, policy);
  await checkWebhookUrl(plan, policy);
  if (!plan.tasks.some((t) => t.spec.servesDownloads)) throw invalidJob('The job needs an export/url task: the URL redirects to its first file.');

  const digest = runDigest(json, params.cacheKey);
  const jobId = params.cacheKey
    ? await cachedJob(store, base, digest, (jobId) => startJob(req, base, plan, jobId))
    : await uncachedJob(store, base, digest, query.unsigned.get('run'), (jobId) => startJob(req, base, plan, jobId));

  const tasks = taskStore();
  const job = await waitFor(() => tasks.getJob(jobId), (j) => !j || Boolean(j.endedAt), config().SIGNED_URL_WAIT_SECONDS * 1000);
  if (!job) throw notFound('The job of this URL was deleted.');
  if (!job.endedAt) {
    if (!params.cacheKey) await store.rememberRun(base.id, digest, job.id, job.expiresAt);
    const again = `${base.url}?${query.signed}&s=${query.signature}${params.cacheKey ? '' : `&run=${job.id}`}`;
    req.log.info('signed url job still running; client sent back to wait', { jobId: job.id, signedUrlId: base.id });
    return { status: 302, headers: { location: again, 'cache-control': 'no-store' } };
  }
  return answer(job, req.baseUrl);
}

/** 302 to the first export URL of a finished job; a failed job is a 422 with its failing task's code and message. */
async function answer(job: JobRecord, baseUrl: string): Promise<HttpResponse> {
  const tasks = await taskStore().getTasks(job.taskIds);
  if (job.status === 'error') {
    const failed = tasks.find((t) => t.status === 'error' && t.code !== 'INPUT_TASK_FAILED') ?? tasks.find((t) => t.status === 'error');
    throw new ApiError('INVALID_ARGUMENT', `The job failed: ${failed?.message ?? 'a task failed'}`, { code: failed?.code ?? 'JOB_FAILED', status: 422 });
  }
  const links = await taskLinks().for(tasks, baseUrl);
  for (const task of tasks) {
    const url = links.fileUrl(task, 0);
    if (url) return { status: 302, headers: { location: url } };
  }
  throw new ApiError('INVALID_ARGUMENT', 'The job finished without exporting a file.', { code: 'JOB_FAILED', status: 422 });
}

/** The job a cached URL answers with: the one its cache entry names, else a new one made under a claim. */
async function cachedJob(store: SignedUrlStore, base: SignedUrlRecord, digest: string, start: (jobId: string) => Promise<void>): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const entry = await store.cached(base.id, digest);
    let replacing: string | undefined;
    if (entry) {
      let job = await taskStore().getJob(entry.jobId);
      // The request that claimed the entry may still be creating its job.
      if (!job && Date.now() - Date.parse(entry.createdAt) < CLAIM_GRACE_MS) {
        job = await waitFor(() => taskStore().getJob(entry.jobId), Boolean, CLAIM_GRACE_MS - (Date.now() - Date.parse(entry.createdAt)));
      }
      if (job && !isExpired(job) && job.status !== 'error') return job.id;
      replacing = entry.jobId;
    }
    const jobId = randomUUID();
    const expiresAt = Math.floor(Date.now() / 1000) + 24 * 60 * 60;
    if (!(await store.claim(base.id, digest, jobId, expiresAt, replacing))) continue;
    try {
      await start(jobId);
    } catch (err) {
      await store.release(base.id, digest, jobId);
      throw err;
    }
    return jobId;
  }
  throw new ApiError('ABORTED', 'Too many concurrent requests for this signed URL; try again.');
}

/** An uncached URL runs its job on every request, except the re-wait of a job it started. */
async function uncachedJob(store: SignedUrlStore, base: SignedUrlRecord, digest: string, run: string | undefined, start: (jobId: string) => Promise<void>): Promise<string> {
  if (run && UUID.test(run) && (await store.isRunOf(base.id, digest, run))) return run;
  const jobId = randomUUID();
  await start(jobId);
  return jobId;
}

/** Creates the job as the base's owner, counted against the rate limit of the key that made the base. */
async function startJob(req: HttpRequest, base: SignedUrlRecord, plan: JobPlan, jobId: string): Promise<void> {
  const rate = await rateLimiter().consume(base.keyId);
  if (!rate.allowed) throw new ApiError('RESOURCE_EXHAUSTED', 'Too many requests. Try again later.', { headers: rateHeaders(rate) });
  await taskService().createJob(base.userId, plan, undefined, {
    jobId,
    keyId: base.keyId,
    baseUrl: req.baseUrl,
    region: await requestRegion({ sourceIp: req.sourceIp, principal: { userId: base.userId } }),
    sandbox: base.sandbox === true,
  });
  req.log.info('signed url job created', { jobId, signedUrlId: base.id });
}
