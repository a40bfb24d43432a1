/**
 * For `npm run bench`'s hop breakdown and calls per job (bench/hops.ts, bench/calls-per-job.ts):
 * records, as one JSON line each in CALL_TRACE_FILE, every HTTP request this process makes and every
 * one it answers, through `node:http`'s diagnostics channels.
 *
 * - Made (`dir` absent): when it started and when its answer arrived (epoch ms), the host it went to,
 *   method, path, the AWS operation (`x-amz-target`, for the DynamoDB and SQS protocols), whether it
 *   was an S3 copy, and for DynamoDB the partition key values it names (`pks`: each item's or key's
 *   `pk`, or a query's partition value), read from the start of the request body.
 * - Answered (`dir: 'in'`): the serverless-offline process's own servers, so each invocation of a
 *   function shows, whether through the HTTP API (method and path) or the Lambda invoke endpoint
 *   (`/functions/{name}/invocations`), with when it started and ended.
 *
 * Preloaded with `--require` into the serverless-offline process (the functions' calls to the local
 * backends). Does nothing without CALL_TRACE_FILE.
 */
/* global performance, setInterval, Buffer */
'use strict';

const dc = require('node:diagnostics_channel');
const fs = require('node:fs');
const http = require('node:http');

/** How much of a request body is kept to find its keys. */
const BODY_HEAD = 16 * 1024;

/** The `pk` values a DynamoDB request names, from the start of its JSON body (cut short bodies too). */
function partitionValues(target, body) {
  if (!target || !target.startsWith('DynamoDB') || !body) return undefined;
  if (target.endsWith('.Query')) {
    const m = /"ExpressionAttributeValues":\{"[^"]+":\{"S":"([^"]*)"/.exec(body);
    return m ? [m[1]] : undefined;
  }
  const out = [];
  for (const m of body.matchAll(/"pk":\{"S":"([^"]*)"/g)) out.push(m[1]);
  return out.length ? out : undefined;
}

const file = process.env.CALL_TRACE_FILE;
if (file) {
  const started = new WeakMap();
  const bodies = new WeakMap();
  let lines = [];
  const flush = () => {
    if (!lines.length) return;
    fs.appendFileSync(file, lines.join(''));
    lines = [];
  };
  const now = () => performance.timeOrigin + performance.now();
  // The body's start, for DynamoDB's keys (a 1 MB upload is not kept whole). Kept as it is written:
  // the request's start is announced only once it has been sent.
  const keep = (request, chunk) => {
    const chunks = bodies.get(request) ?? [];
    const kept = chunks.reduce((n, c) => n + c.length, 0);
    if (kept >= BODY_HEAD || chunk == null || typeof chunk === 'function') return;
    chunks.push(Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8', 0, BODY_HEAD - kept) : String(chunk).slice(0, BODY_HEAD - kept));
    bodies.set(request, chunks);
  };
  const { write, end } = http.ClientRequest.prototype;
  http.ClientRequest.prototype.write = function (chunk, ...rest) {
    keep(this, chunk);
    return write.call(this, chunk, ...rest);
  };
  http.ClientRequest.prototype.end = function (chunk, ...rest) {
    keep(this, chunk);
    return end.call(this, chunk, ...rest);
  };
  dc.subscribe('http.client.request.start', ({ request }) => started.set(request, now()));
  dc.subscribe('http.client.response.finish', ({ request, response }) => {
    const t0 = started.get(request);
    if (t0 === undefined) return;
    const target = request.getHeader('x-amz-target');
    const body = (bodies.get(request) ?? []).join('');
    lines.push(
      `${JSON.stringify({
        t0,
        t1: now(),
        pid: process.pid,
        host: String(request.getHeader('host') ?? request.host),
        method: request.method,
        path: request.path,
        target: target === undefined ? undefined : String(target),
        copy: request.getHeader('x-amz-copy-source') === undefined ? undefined : true,
        pks: partitionValues(target === undefined ? undefined : String(target), body),
        status: response.statusCode,
      })}\n`,
    );
  });
  const serving = new WeakMap();
  dc.subscribe('http.server.request.start', ({ request }) => serving.set(request, now()));
  dc.subscribe('http.server.response.finish', ({ request, response }) => {
    const t0 = serving.get(request);
    if (t0 === undefined) return;
    lines.push(`${JSON.stringify({ dir: 'in', t0, t1: now(), pid: process.pid, host: String(request.headers.host ?? ''), method: request.method, path: request.url, status: response.statusCode })}\n`);
  });
  setInterval(flush, 200).unref();
  process.on('exit', flush);
}
