/**
 * Live events for `npm run bench`: how long after a task ends its `task.finished` event reaches a
 * subscribed socket.io client, beside how long a client polling the task every second (the way
 * `tasks.wait`-style loops do) takes to see the same end, both measured on the same jobs.
 *
 * The end is the task's stored `endedAt` (milliseconds, written by the step consumer as it finishes
 * the task; the API shows it to the second), read from the state table after the job. The client, the
 * functions and the table are on this machine: one clock. Jobs (import/raw → export/url) run a few at a
 * time; the export task's end is measured.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { io } from 'socket.io-client';
import { SocketConnections } from '#lib/file-api/events/connections.js';
import { LOCAL_CREDENTIALS } from '../local/backends.js';
import { type Emulator } from '../local/emulator.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { TaskStore } from '#lib/file-api/records/store.js';
import { cloudConvertClient } from '../test/support/cloudconvert.js';

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function liveEventScenario(platform: Emulator, jobs = 36, concurrency = 4): Promise<string[]> {
  const cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const state = new DynamoStateStore(new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }), 'api-platform-local-state');
  const tasks = new TaskStore(state);
  const connections = new SocketConnections(state);
  const userId = Number((await cc.users.me()).id);
  const channel = `private-user.${userId}.tasks`;
  const socket = io(platform.socketUrl, { transports: ['websocket'] });
  const heard = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  socket.on('task.finished', (on: string, data: { task: { id: string } }) => {
    if (on !== channel) return;
    heard.set(data.task.id, Date.now());
    waiters.get(data.task.id)?.();
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.emit('subscribe', { channel, auth: { headers: { Authorization: `Bearer ${platform.apiKey}` } } });
  // In place once recorded (the protocol has no acknowledgement).
  while (!(await connections.subscribersOf(userId, false)).some((sub) => sub.channel === channel)) await sleep(50);

  const pushed: number[] = [];
  const polled: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs) {
      const i = next++;
      const job = await cc.jobs.create({
        tasks: { raw: { operation: 'import/raw', file: `live ${i}`, filename: 'live.txt' }, url: { operation: 'export/url', input: 'raw' } },
      } as never);
      const id = job.tasks.find((t) => t.name === 'url')!.id;
      const event = new Promise<void>((resolve) => (heard.has(id) ? resolve() : waiters.set(id, resolve)));
      // The poll loop: GET the task, then again a second later, until it has ended.
      let seen: number;
      for (;;) {
        const task = await cc.tasks.get(id);
        if (task.status === 'finished' || task.status === 'error') {
          seen = Date.now();
          break;
        }
        await sleep(1000);
      }
      await event;
      const ended = Date.parse((await tasks.getTask(id))!.endedAt!);
      pushed.push(heard.get(id)! - ended);
      polled.push(seen - ended);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    socket.close();
  }
  const line = (xs: number[]) => `median ${percentile(xs, 50).toFixed(0)} ms, p99 ${percentile(xs, 99).toFixed(0)} ms`;
  return [
    `task end → its finished event at a subscribed socket.io client: ${line(pushed)}; a 1 s poll loop (GET /v2/tasks/{id}) on the same ` +
      `tasks saw the end ${line(polled)} after it (${jobs} jobs, ${concurrency} at a time)`,
  ];
}
