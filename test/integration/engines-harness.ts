/**
 * Jobs on the real engines in-process, without the gateway: dynalite and s3rver for state and files,
 * a recording queue drained by hand through `runTask` with the process step's implementations.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig, type Config } from '#lib/kernel/config.js';
import { createLogger } from '#lib/kernel/log.js';
import { archive, exportUrl, importStaged, importUrl, PROCESSING_IMPLEMENTATIONS } from '../support/operations.js';
import { outputKey, type Implementation } from '#lib/file-api/operations/framework/types.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { TEST_CONFIG_ENV } from '../support/recording-queue.js';
import { startTaskBackends, wireTasks } from '../support/task-harness.js';

export const IMPLEMENTATIONS: Record<string, Implementation> = {
  'import/raw': importStaged,
  'import/base64': importStaged,
  'import/url': importUrl,
  'export/url': exportUrl,
  archive,
  ...PROCESSING_IMPLEMENTATIONS,
};

export type Harness = Awaited<ReturnType<typeof startEngineHarness>>;

export async function startEngineHarness(settings: Record<string, string> = {}) {
  const backends = await startTaskBackends();
  const log = createLogger({}, { level: process.env.ENGINES_LOG ? 'debug' : 'silent' });
  // The engines' folders (and Chromium's profile) in a folder of the harness's own, removed at close.
  const engineDir = mkdtempSync(path.join(tmpdir(), 'engines-harness-'));
  const config: Config = parseConfig({ ...TEST_CONFIG_ENV, ENGINE_TMP_DIR: engineDir, ...settings });
  const { files } = backends;
  const { queue, store, service, drain: drainWith } = wireTasks(backends, { log, config });

  /** Runs every queued task (and the ones they make ready) to its end. */
  const drain = () =>
    drainWith(IMPLEMENTATIONS, {
      // Sandbox jobs (`run(…, { sandbox: true })`) on any file: the whitelist is not what these tests are about.
      sandboxFiles: { notAllowed: async () => [] },
      requeue: (task, delaySeconds) => queue.send(task.step, { taskId: task.id }, { delaySeconds }),
    });

  return {
    config,
    files,
    store,
    /** Creates a job (validated as the API does: throws the 422 ApiError) and runs it; tasks by name. */
    async run(tasks: Record<string, Record<string, unknown>>, origin: { sandbox?: boolean } = {}): Promise<Record<string, TaskRecord>> {
      const { tasks: created } = await service.createJob(1, planJob({ tasks }), undefined, origin);
      await drain();
      const out: Record<string, TaskRecord> = {};
      for (const t of created) out[t.name!] = (await store.getTask(t.id))!;
      return out;
    },
    /** A task's output file. */
    async file(task: TaskRecord, index = 0): Promise<Buffer> {
      const entry = task.result?.files?.[index];
      if (!entry) throw new Error(`task ${task.name} has no file ${index}: ${JSON.stringify({ status: task.status, code: task.code, message: task.message })}`);
      const { body } = await files.files.get(outputKey(task.id, entry.filename, entry.dir));
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    /** Writes a task's output file to `dir` and returns its path (to read it back as a file). */
    async saveTo(dir: string, task: TaskRecord, index = 0): Promise<string> {
      const target = path.join(dir, `${task.id}-${index}-${task.result!.files![index]!.filename}`);
      writeFileSync(target, await this.file(task, index));
      return target;
    },
    close: async () => {
      await backends.close();
      rmSync(engineDir, { recursive: true, force: true });
    },
  };
}

/** An `import/base64` task for a file. */
export const base64 = (bytes: Buffer, filename: string) => ({ operation: 'import/base64', file: bytes.toString('base64'), filename });
