/**
 * A process task whose message reaches the function of another engine family than the one that runs
 * its engine (queued before the capability list changed, or routed from a name its bytes belie) is
 * handed to its family's queue and runs there; it is never failed for being in the wrong place. Each
 * queue is consumed with only its family's implementations, as the deployed functions are
 * (functions/tasks/process-<family>-step.ts).
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { FAMILY_QUEUES } from '#lib/engines/core/families.js';
import { implementations as imageFunction } from '#functions/tasks/process-image-step.js';
import { implementations as mediaFunction } from '#functions/tasks/process-media-step.js';
import { implementations as pdfFunction } from '#functions/tasks/process-pdf-step.js';
import { exportUrl, importStaged } from '../support/operations.js';
import type { Implementation } from '#lib/file-api/operations/framework/types.js';
import type { QueueName } from '#lib/adapters/queue/port.js';
import type { TaskRecord } from '#lib/file-api/records/model.js';
import { planJob } from '#lib/file-api/tasks/plan.js';
import { MAX_HOPS, runTask } from '#lib/file-api/tasks/runner.js';
import type { RecordingQueue } from '../support/recording-queue.js';
import { useTaskBackends, wireTasks } from '../support/task-harness.js';

const STEPS: Record<string, Implementation> = { 'import/base64': importStaged, 'export/url': exportUrl };

async function threePagePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 3; i++) doc.addPage([595, 842]).drawText(`page ${i}`, { x: 60, y: 760, size: 18, font });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

describe('a process task at the wrong engine family’s function', () => {
  const backends = useTaskBackends();

  /**
   * A stack whose scheduler sends every process task to `misroute` (a stale capability list), each
   * queue consumed with `consumers[queue]`; returns the job's tasks and every message sent.
   */
  async function run(
    tasks: Record<string, Record<string, unknown>>,
    misroute: QueueName,
    consumers: Partial<Record<QueueName, Record<string, Implementation>>>,
    /** Hops the misrouted messages arrive with (handed on that often already). */
    arrivedHops?: number,
  ) {
    const { queue, store, service, deps } = wireTasks(backends, { scheduler: { route: () => misroute as never } });
    const { tasks: created } = await service.createJob(1, planJob({ tasks }));
    const sent: RecordingQueue['sent'] = [];
    for (let round = 0; round < 50; round++) {
      const batch = queue.sent.splice(0);
      if (!batch.length) break;
      sent.push(...batch);
      for (const { queue: name, message } of batch) {
        if (arrivedHops !== undefined && name === misroute && message.hops === undefined) message.hops = arrivedHops;
        const implementations = name === 'import' || name === 'export' ? STEPS : consumers[name];
        if (!implementations) throw new Error(`a message was sent to ${name}, which nothing consumes here`);
        await runTask(
          message.taskId,
          deps(implementations, {
            queue: name,
            hops: message.hops,
            requeue: (task, delaySeconds) => queue.send(name, { taskId: task.id }, { delaySeconds }),
            forward: (task, to, hops) => queue.send(to, { taskId: task.id, hops }),
          }),
        );
      }
    }
    const byName: Record<string, TaskRecord> = {};
    for (const t of created) byName[t.name!] = (await store.getTask(t.id))!;
    return { tasks: byName, sent };
  }

  const families = {
    [FAMILY_QUEUES.image]: imageFunction,
    [FAMILY_QUEUES.media]: mediaFunction,
    [FAMILY_QUEUES.pdf]: pdfFunction,
  };

  it('hands a PDF optimize that reached the image function to the pdf function, where it runs', async () => {
    const pdf = await threePagePdf();
    const { tasks, sent } = await run(
      {
        in: { operation: 'import/base64', file: pdf.toString('base64'), filename: 'report.pdf' },
        opt: { operation: 'optimize', input: 'in', engine: 'qpdf' },
        out: { operation: 'export/url', input: 'opt' },
      },
      FAMILY_QUEUES.image,
      families,
    );
    expect(tasks.opt, JSON.stringify(tasks.opt)).toMatchObject({ status: 'finished', engine: 'qpdf' });
    expect(tasks.out!.status).toBe('finished');
    const optId = tasks.opt!.id;
    expect(sent.filter((s) => s.message.taskId === optId).map((s) => [s.queue, s.message.hops])).toEqual([
      [FAMILY_QUEUES.image, undefined],
      [FAMILY_QUEUES.pdf, 1],
    ]);
    const out = tasks.opt!.result!.files![0]!;
    expect(out.filename).toBe('report.pdf');
    expect(out.size).toBeGreaterThan(500);
  }, 300_000);

  it('hands an operation the function has no handler for at all (archive at the media function) to the family that runs it', async () => {
    const { tasks, sent } = await run(
      {
        a: { operation: 'import/base64', file: Buffer.from('first file\n').toString('base64'), filename: 'a.txt' },
        b: { operation: 'import/base64', file: Buffer.from('second file\n').toString('base64'), filename: 'b.txt' },
        zip: { operation: 'archive', input: ['a', 'b'], output_format: 'zip' },
      },
      FAMILY_QUEUES.media,
      families,
    );
    expect(tasks.zip, JSON.stringify(tasks.zip)).toMatchObject({ status: 'finished' });
    expect(tasks.zip!.result!.files![0]!.filename).toMatch(/\.zip$/);
    expect(sent.filter((s) => s.message.taskId === tasks.zip!.id).map((s) => s.queue)).toEqual([FAMILY_QUEUES.media, FAMILY_QUEUES.image]);
  }, 300_000);

  it('fails the task, saying why, when its family’s own function cannot run it either (two versions of a deployment that disagree)', async () => {
    const pdf = await threePagePdf();
    // The pdf queue's consumer has no PDF engine: the task is handed there once, then ends in error.
    const media = mediaFunction;
    const { tasks, sent } = await run(
      {
        in: { operation: 'import/base64', file: pdf.toString('base64'), filename: 'report.pdf' },
        opt: { operation: 'optimize', input: 'in' },
      },
      FAMILY_QUEUES.media,
      { [FAMILY_QUEUES.media]: media, [FAMILY_QUEUES.pdf]: media },
    );
    expect(tasks.opt).toMatchObject({ status: 'error', code: 'ENGINE_UNAVAILABLE' });
    expect(tasks.opt!.message).toMatch(/^No function of this deployment runs this task \(optimize /);
    expect(sent.filter((s) => s.message.taskId === tasks.opt!.id).map((s) => s.queue)).toEqual([FAMILY_QUEUES.media, FAMILY_QUEUES.pdf]);
  }, 300_000);

  it(`stops handing a task on after ${MAX_HOPS} hops`, async () => {
    const pdf = await threePagePdf();
    const { tasks, sent } = await run(
      {
        in: { operation: 'import/base64', file: pdf.toString('base64'), filename: 'report.pdf' },
        opt: { operation: 'optimize', input: 'in' },
      },
      FAMILY_QUEUES.image,
      families,
      MAX_HOPS,
    );
    expect(tasks.opt).toMatchObject({ status: 'error', code: 'ENGINE_UNAVAILABLE' });
    expect(sent.filter((s) => s.message.taskId === tasks.opt!.id).map((s) => s.queue)).toEqual([FAMILY_QUEUES.image]);
  }, 300_000);
});
