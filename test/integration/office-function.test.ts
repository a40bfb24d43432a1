/**
 * The office engine function outside Docker: the handler the Dockerfile's CMD names, loaded and invoked
 * as the Lambda runtime interface client does (module `<CMD without .handler>`, `handler(event,
 * context)`), by the office process function (ENGINE_ISOLATION=function) through Lambda's Invoke, on
 * SQS events from the local backends, with the environment the functions get in the stack
 * (ENGINE_FAMILY=office, ENGINE_CONFINEMENT=platform: Lambda has no bubblewrap). It converts a
 * real .docx to a PDF whose text is checked, slides to one PNG each, text to MOBI (calibre) and Markdown
 * to DOCX (pandoc), and, per the office function's security decision
 * (lib/engines/office/office-links.ts), documents linking file:// and the loopback pull nothing in.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import mammoth from 'mammoth';
import sharp from 'sharp';
import { afterAll, expect } from 'vitest';
import { startDispatcher, type Dispatcher } from '../../local/dispatcher.js';
import { LOCAL_CREDENTIALS, startBackends, type Backends } from '../../local/backends.js';
import type * as Files from '#lib/wiring/files.js';
import type * as Tasks from '#lib/wiring/tasks.js';
import type * as Plan from '#lib/file-api/tasks/plan.js';
import { docxWithLinkedImages, zip } from '../fixtures/engine-fixtures.js';
import { mobiBook, palmDatabase } from '../support/ebook-readers.js';
import { pptx } from '../fixtures/slides-fixtures.js';
import { pdfText } from '../support/pdf-text.js';
import { engine, requires, tool } from '../support/requires.js';

const office = requires(tool('soffice'), tool('pandoc'), tool('gs'), tool('qpdf'), engine('calibre'));

type Handler = (event: SQSEvent, context: Context) => Promise<unknown>;
const names = { table: 'office-fn-state', bucket: 'office-fn-files', queue: 'office-fn' };
const SECRET_TEXT = 'SECRET-OFFICE-LINK-7731';

/** The module and export the Dockerfile's CMD names (`functions/tasks/process-office-step.handler`). */
function dockerfileHandler(): { module: string; name: string } {
  const cmd = /^CMD\s+\["([^"]+)"\]/m.exec(readFileSync('Dockerfile', 'utf8'))?.[1];
  if (!cmd) throw new Error('the Dockerfile has no CMD ["<module>.<handler>"]');
  const dot = cmd.lastIndexOf('.');
  return { module: cmd.slice(0, dot), name: cmd.slice(dot + 1) };
}

let engineHandler: ((event: unknown, context: Context) => Promise<unknown>) | undefined;
let invokeServer: Server | undefined;
/** How many tasks the engine function ran. */
let engineRuns = 0;

/** Lambda's synchronous Invoke of the engine function (`POST /2015-03-31/functions/engineOffice/invocations`). */
async function startInvoke(): Promise<string> {
  invokeServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!req.url?.includes('/functions/engineOffice/invocations')) return res.writeHead(404).end('{}');
      engineRuns++;
      engineHandler!(JSON.parse(Buffer.concat(chunks).toString('utf8')), lambdaContext('engineOffice')).then(
        (answer) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)),
        (err: Error) => res.writeHead(200, { 'x-amz-function-error': 'Unhandled' }).end(JSON.stringify({ errorMessage: err.message })),
      );
    });
  });
  await new Promise<void>((resolve) => invokeServer!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(invokeServer.address() as AddressInfo).port}`;
}

/** What the runtime interface client passes as the context. */
function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + 900_000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '3008',
    awsRequestId: crypto.randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

const xml = '<?xml version="1.0" encoding="UTF-8"?>';


const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ' +
  'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:config="urn:oasis:names:tc:opendocument:xmlns:config:1.0"';

/** An ODT whose paragraphs have background images at `links` (LibreOffice embeds a file:// one whatever its settings). */
function odtWithBackgrounds(links: string[]): Promise<Buffer> {
  const styles = links
    .map((href, i) => `<style:style style:name="Bg${i}" style:family="paragraph"><style:paragraph-properties fo:min-height="4cm"><style:background-image xlink:href="${href}" xlink:type="simple" xlink:actuate="onLoad" style:repeat="stretch"/></style:paragraph-properties></style:style>`)
    .join('');
  const body = `<text:p>Before the links</text:p>${links.map((_, i) => `<text:p text:style-name="Bg${i}">Background ${i}</text:p>`).join('')}<text:p>After the links</text:p>`;
  return zip(
    {
      mimetype: 'application/vnd.oasis.opendocument.text',
      'META-INF/manifest.xml':
        `${xml}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">` +
        '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>' +
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>' +
        '<manifest:file-entry manifest:full-path="settings.xml" manifest:media-type="text/xml"/></manifest:manifest>',
      'settings.xml':
        `${xml}<office:document-settings ${ODF_NS} office:version="1.2"><office:settings><config:config-item-set config:name="ooo:configuration-settings">` +
        '<config:config-item config:name="LinkUpdateMode" config:type="short">2</config:config-item></config:config-item-set></office:settings></office:document-settings>',
      'content.xml':
        `${xml}<office:document-content ${ODF_NS} office:version="1.2"><office:automatic-styles>${styles}</office:automatic-styles>` +
        `<office:body><office:text>${body}</office:text></office:body></office:document-content>`,
    },
    ['mimetype'],
  );
}

async function pdfImages(bytes: Buffer): Promise<number> {
  const doc = await PDFDocument.load(bytes);
  let images = 0;
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image')) images++;
  }
  return images;
}

office.describe('the office function (the Dockerfile’s handler) outside Docker, with soffice on PATH', () => {
  let backends: Backends;
  let dispatcher: Dispatcher;
  let receiver: Server;
  let receiverUrl = '';
  const requested: string[] = [];
  /** What the event source mapping reported (a failed invocation, a poll error). */
  const problems: string[] = [];
  const work = mkdtempSync(path.join(tmpdir(), 'office-fn-'));
  const engineTmp = path.join(work, 'engine-tmp');
  const secretPng = path.join(work, 'secret.png');
  mkdirSync(engineTmp);
  // Loaded once the function's environment is set (the platform reads its settings once).
  let service: typeof Tasks;
  let files: typeof Files;
  let planJob: typeof Plan.planJob;

  office.beforeAll(async () => {
    receiver = createServer((req, res) => {
      requested.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end(readFileSync(secretPng));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    writeFileSync(secretPng, await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 250, g: 0, b: 0 } } }).png().toBuffer());
    writeFileSync(path.join(work, 'secret.txt'), SECRET_TEXT);
    const q = (s: string) => `${names.queue}-${s}`;
    backends = await startBackends({
      dataDir: path.join(work, 'data'),
      table: names.table,
      bucket: names.bucket,
      queues: ['import', 'process', 'process-media', 'process-pdf', 'process-chromium', 'process-office', 'export', 'operations', 'webhooks'].map((s) => ({ name: q(s), visibilityTimeout: 300 })),
    });
    // The stack's environment for the office function (serverless.yml, scripts/serverless-engine-functions.cjs).
    Object.assign(process.env, {
      STATE_TABLE: names.table,
      FILES_BUCKET: names.bucket,
      IMPORT_QUEUE: q('import'),
      PROCESS_QUEUE: q('process'),
      PROCESS_MEDIA_QUEUE: q('process-media'),
      PROCESS_PDF_QUEUE: q('process-pdf'),
      PROCESS_CHROMIUM_QUEUE: q('process-chromium'),
      PROCESS_OFFICE_QUEUE: q('process-office'),
      EXPORT_QUEUE: q('export'),
      OPERATIONS_QUEUE: q('operations'),
      WEBHOOKS_QUEUE: q('webhooks'),
      AWS_ENDPOINT_URL_DYNAMODB: backends.endpoints.dynamodb,
      AWS_ENDPOINT_URL_S3: backends.endpoints.s3,
      AWS_ENDPOINT_URL_SQS: backends.endpoints.sqs,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_REGION: 'us-east-1',
      ENGINE_FUNCTIONS: 'image,media,pdf,chromium,office',
      ENGINE_FAMILY: 'office',
      ENGINE_CONFINEMENT: 'platform',
      ENGINE_TMP_DIR: engineTmp,
      LOG_LEVEL: 'warn',
      // The deployed stack's split (ENGINE_ISOLATION=function): the process function invokes the office
      // engine function (the image's handler) through Lambda's Invoke, here a local stand-in.
      ENGINE_ISOLATION: 'function',
      ENGINE_FUNCTION_NAME: 'engineOffice',
      AWS_ENDPOINT_URL_LAMBDA: await startInvoke(),
    });
    const cmd = dockerfileHandler();
    engineHandler = (await import(path.resolve(`${cmd.module}.ts`)))[cmd.name] as (event: unknown, context: Context) => Promise<unknown>;
    const officeHandler = (await import('../../functions/tasks/process-office-step.js')).handler as unknown as Handler;
    const importHandler = (await import('../../functions/tasks/import-step.js')).handler as unknown as Handler;
    service = await import('#lib/wiring/tasks.js');
    files = await import('#lib/wiring/files.js');
    planJob = (await import('#lib/file-api/tasks/plan.js')).planJob;
    const handlers: Record<string, Handler> = { importStep: importHandler, processOffice: officeHandler };
    dispatcher = startDispatcher({
      sqs: backends.sqs,
      region: 'us-east-1',
      waitTimeSeconds: 1,
      log: { info: () => {}, warn: (m) => problems.push(m), error: (m) => problems.push(m) },
      invoke: async (name, event) => ({ ok: true, payload: await handlers[name]!(event, lambdaContext(name)) }),
      mappings: [
        { queueName: q('import'), functionName: 'importStep', batchSize: 1, reportBatchItemFailures: true, concurrency: 1 },
        { queueName: q('process-office'), functionName: 'processOffice', batchSize: 1, reportBatchItemFailures: true, concurrency: 1 },
      ],
    });
  }, 300_000);

  afterAll(async () => {
    await dispatcher?.stop();
    await backends?.stop();
    // Without soffice nothing was started (the tests skip): nothing to close.
    if (receiver) await new Promise((resolve) => receiver!.close(resolve));
    if (invokeServer) await new Promise((resolve) => invokeServer!.close(resolve));
    rmSync(work, { recursive: true, force: true });
  });

  /** Creates a job importing `bytes` as `filename` and converting it to `to` (PDF); waits for the conversion to end. */
  async function convert(bytes: Buffer, filename: string, to = 'pdf') {
    const { tasks } = await service.taskService().createJob(1, planJob({ tasks: { in: { operation: 'import/base64', file: bytes.toString('base64'), filename }, pdf: { operation: 'convert', input: 'in', output_format: to } } }));
    const id = tasks.find((t) => t.name === 'pdf')!.id;
    for (let i = 0; i < 600; i++) {
      const task = await service.taskStore().getTask(id);
      if (task && ['finished', 'error'].includes(task.status)) {
        if (task.status !== 'finished') return { task, pdf: undefined, outputs: [] };
        const outputs: Buffer[] = [];
        for (const entry of task.result!.files!) {
          const { body } = await files.fileStore().get(`tasks/${task.id}/${entry.filename}`);
          const chunks: Buffer[] = [];
          for await (const chunk of body) chunks.push(chunk as Buffer);
          outputs.push(Buffer.concat(chunks));
        }
        return { task, pdf: outputs[0], outputs };
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`the conversion of ${filename} did not end in 300 s: ${problems.join('; ')}`);
  }

  office.it('converts a real .docx to a PDF with its text, on the office queue the task was routed to, in the engine function', async () => {
    const before = engineRuns;
    const { task, pdf } = await convert(await docxWithLinkedImages(['Quarterly letter to the shareholders', 'Revenue grew in every region.']), 'letter.docx');
    expect(task, JSON.stringify({ status: task.status, code: task.code, message: task.message })).toMatchObject({ status: 'finished', engine: 'libreoffice' });
    const text = await pdfText(pdf!);
    expect(text).toContain('Quarterly letter to the shareholders');
    expect(text).toContain('Revenue grew in every region.');
    expect(engineRuns).toBe(before + 1);
    // The call's folder (profile, HOME, inputs) is gone with the task.
    expect(readdirSync(engineTmp)).toEqual([]);
  }, 600_000);

  office.it('pulls in nothing a .docx links to: file:///etc/hostname, a local image and a loopback URL', async () => {
    requested.length = 0;
    const links = ['file:///etc/hostname', `file://${secretPng}`, `${receiverUrl}/docx/image.png`];
    const { task, pdf } = await convert(await docxWithLinkedImages(['Before the links', 'After the links'], links), 'linked.docx');
    expect(task, JSON.stringify({ status: task.status, code: task.code, message: task.message })).toMatchObject({ status: 'finished', engine: 'libreoffice' });
    expect(requested).toEqual([]);
    expect(await pdfImages(pdf!)).toBe(0);
    const text = await pdfText(pdf!);
    expect(text).toContain('After the links');
    const hostname = readFileSync('/etc/hostname', 'utf8').trim();
    expect(text.split(/\s+/)).not.toContain(hostname);
  }, 600_000);

  office.it('pulls in no paragraph background from file:// or the loopback (LibreOffice embeds a file:// one whatever its settings)', async () => {
    requested.length = 0;
    const { task, pdf } = await convert(await odtWithBackgrounds([`file://${secretPng}`, `${receiverUrl}/odt/background.png`]), 'backgrounds.odt');
    expect(task, JSON.stringify({ status: task.status, code: task.code, message: task.message })).toMatchObject({ status: 'finished', engine: 'libreoffice' });
    expect(requested).toEqual([]);
    expect(await pdfImages(pdf!)).toBe(0);
    expect(await pdfText(pdf!)).toContain('After the links');
  }, 600_000);

  office.it('refuses HTML under an office name, where links cannot be stripped', async () => {
    const html = `<!DOCTYPE html><html><body><p>Before</p><img src="file://${secretPng}"><img src="${receiverUrl}/html/x.png"><p>After</p></body></html>`;
    const { task } = await convert(Buffer.from(html), 'page.docx');
    expect(task).toMatchObject({ status: 'error', code: 'INVALID_INPUT' });
    expect(task.message).toMatch(/page\.docx is not a docx file/);
    expect(requested.filter((r) => r.startsWith('/html/'))).toEqual([]);
  }, 600_000);

  // The image's other engines and parts (.ci/office-packages), as the office function runs them: one
  // job each, run by the engine function.
  office.it('converts slides to one PNG per slide (Impress, then Ghostscript), e-books (calibre) and Markdown (pandoc)', async () => {
    const before = engineRuns;
    const slides = await convert(await pptx(['Oneslide', 'Twoslide', 'Threeslide']), 'deck.pptx', 'png');
    expect(slides.task, JSON.stringify({ code: slides.task.code, message: slides.task.message })).toMatchObject({ status: 'finished', engine: 'libreoffice' });
    expect(slides.outputs).toHaveLength(3);
    for (const png of slides.outputs) expect((await sharp(png).metadata()).format).toBe('png');
    const mobi = await convert(Buffer.from('Tides\n\nThe moon pulls the seawater twice a day.\n'), 'tides.txt', 'mobi');
    expect(mobi.task, JSON.stringify({ code: mobi.task.code, message: mobi.task.message })).toMatchObject({ status: 'finished', engine: 'calibre' });
    expect(palmDatabase(mobi.pdf!)).toMatchObject({ type: 'BOOK', creator: 'MOBI' });
    expect(mobiBook(mobi.pdf!).text).toContain('The moon pulls the seawater twice a day.');
    const md = await convert(Buffer.from('# Field notes\n\nThe **otter** sleeps on its back.\n'), 'notes.md', 'docx');
    expect(md.task, JSON.stringify({ code: md.task.code, message: md.task.message })).toMatchObject({ status: 'finished', engine: 'pandoc' });
    expect((await mammoth.extractRawText({ buffer: md.pdf! })).value).toContain('The otter sleeps on its back.');
    expect(engineRuns).toBe(before + 3);
    expect(readdirSync(engineTmp)).toEqual([]);
  }, 600_000);
});
