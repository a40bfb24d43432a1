/**
 * For `npm run bench`'s hop breakdown (bench/hops.ts): records every HTTP request this process makes,
 * through `node:http`'s diagnostics channels, as one JSON line each in CALL_TRACE_FILE: when it
 * started and when its answer arrived (epoch ms), the host it went to, method, path and the AWS
 * operation (`x-amz-target`, for the DynamoDB and SQS protocols). Preloaded with `--require` into the
 * serverless-offline process (the functions' calls to the local backends) and loaded by the bench
 * itself (the dispatcher's Lambda invocations). Does nothing without CALL_TRACE_FILE.
 */
/* global performance, setInterval */
'use strict';

const dc = require('node:diagnostics_channel');
const fs = require('node:fs');

const file = process.env.CALL_TRACE_FILE;
if (file) {
  const started = new WeakMap();
  let lines = [];
  const flush = () => {
    if (!lines.length) return;
    fs.appendFileSync(file, lines.join(''));
    lines = [];
  };
  const now = () => performance.timeOrigin + performance.now();
  dc.subscribe('http.client.request.start', ({ request }) => started.set(request, now()));
  dc.subscribe('http.client.response.finish', ({ request, response }) => {
    const t0 = started.get(request);
    if (t0 === undefined) return;
    const target = request.getHeader('x-amz-target');
    lines.push(
      `${JSON.stringify({
        t0,
        t1: now(),
        pid: process.pid,
        host: String(request.getHeader('host') ?? request.host),
        method: request.method,
        path: request.path,
        target: target === undefined ? undefined : String(target),
        status: response.statusCode,
      })}\n`,
    );
  });
  setInterval(flush, 200).unref();
  process.on('exit', flush);
}
