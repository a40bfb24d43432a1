/**
 * Issue 10, class 1: `metadata/write` writes real metadata only. exiftool treats pseudo-tags
 * (FileName, Directory, HardLink, SymLink, TestName, Geotag…) as file operations, so every tag name
 * outside the allowlist of metadata tags and groups is refused at creation with a 422 that names it,
 * through POST /v2/jobs and POST /v2/metadata/write alike, and nothing is created or moved in the temp
 * folder. Real tags (EXIF, XMP, PDF Info) are still written and read back.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { ApiError } from '#lib/kernel/errors.js';
import { discover } from '#lib/file-api/operations/discovery.js';
import type * as FileApi from '#lib/wiring/file-api.js';
import type * as JobsCreate from '#functions/jobs/create.js';
import type * as TasksCreate from '#functions/tasks/create.js';
import { jpeg, textPdf } from '../fixtures/engine-fixtures.js';
import { engine, requires } from '../support/requires.js';
import { base64, startEngineHarness, type Harness } from '../integration/engines-harness.js';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';

const marker = randomUUID().slice(0, 8);
/** A temp folder of this file's own: os.tmpdir() of this process (and of the exiftool it starts). */
const realTmp = tmpdir();
const privateTmp = mkdtempSync(path.join(realTmp, `metadata-tags-${marker}-`));
/** Targets outside the private folder too, in the machine's real temp folder. */
const outside = (name: string) => path.join(realTmp, `pwned-${marker}-${name}`);
const inside = (name: string) => path.join(privateTmp, `pwned-${marker}-${name}`);

/** Pseudo-tags and tricks, each with the value an attacker would give it. */
const TRICKS: Array<[tag: string, value: string]> = [
  ['FileName', `../../pwned-${marker}-renamed.jpg`],
  ['Directory', outside('moved-dir')],
  ['HardLink', outside('hardlink.jpg')],
  ['SymLink', outside('symlink.jpg')],
  ['File:FileName', `pwned-${marker}-file-group.jpg`],
  ['SYSTEM:Directory', inside('system-dir')],
  ['System:HardLink', inside('system-hardlink.jpg')],
  ['TestName', outside('testname.jpg')],
  ['Geotag', '/etc/passwd'],
  ['Geosync', '+0:00'],
  ['FilePermissions', '777'],
  ['FileModifyDate', '2000:01:01 00:00:00'],
  ['hardlink', outside('lowercase.jpg')],
  ['XMP-dc:FileName', outside('xmp-group.jpg')],
  ['-HardLink', outside('dash.jpg')],
  ['Artist=x', 'y'],
  ['Artist#', 'raw'],
  ['EXIF:all', ''],
  ['TagsFromFile', '/etc/passwd'],
  // Held-out variants: other spellings, copy and list syntax, more pseudo-tags, non-ASCII names.
  ['FILENAME', `pwned-${marker}-upper.jpg`],
  ['XMP-xmp:FileName', outside('xmp-xmp.jpg')],
  ['FileName<Artist', ''],
  ['Artist+', 'appended'],
  [' Artist', 'leading space'],
  ['Geotime', 'now'],
  ['FileCreateDate', '2000:01:01 00:00:00'],
  ['MDItemFinderComment', 'x'],
  ['XAttrQuarantine', 'x'],
  ['TestDir', outside('testdir')],
  // The Kelvin sign (U+212A) lower-cases to an ASCII k in JavaScript, never in exiftool.
  ['\u212Aeywords', 'kelvin'],
  ['IFD0:Ma\u212Ae', 'kelvin'],
  ['\uFF21rtist', 'fullwidth'],
];

/** Every path below `root` with its kind and size (what "nothing was created or moved" compares). */
function tree(root: string, skip: (rel: string) => boolean = () => false): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of entries) {
      const full = path.join(dir, name);
      const rel = path.relative(root, full);
      if (skip(rel)) continue;
      const st = lstatSync(full);
      out.push(`${rel} ${st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : `${st.size}:${st.nlink}`}`);
      if (st.isDirectory()) walk(full);
    }
  };
  walk(root);
  return out.sort();
}

/** Files named after this run's marker anywhere directly below the real temp folder. */
const strays = () => readdirSync(realTmp).filter((n) => n.includes(`pwned-${marker}`));

/** Tag names are checked against the engine that writes them: without exiftool there is nothing to write with. */
const exiftool = requires(engine('exiftool'));

exiftool.describe('metadata/write tag names', () => {
  let h: Harness;
  let photo: Buffer;
  let pdf: Buffer;
  let previousTmp: string | undefined;

  exiftool.beforeAll(async () => {
    previousTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    h = await startEngineHarness();
    photo = await jpeg(64, 48);
    pdf = await textPdf(1);
  });
  afterAll(async () => {
    await h?.close();
    if (exiftool.met) {
      if (previousTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmp;
    }
    for (const stray of strays()) rmSync(path.join(realTmp, stray), { recursive: true, force: true });
    rmSync(privateTmp, { recursive: true, force: true });
  });

  /** The 422's field → messages when the job is refused, else undefined. */
  async function refusal(tasks: Record<string, Record<string, unknown>>): Promise<Record<string, string[]> | undefined> {
    try {
      await h.run(tasks);
      return undefined;
    } catch (err) {
      if (err instanceof ApiError) return err.fields ?? {};
      throw err;
    }
  }

  it.each(TRICKS)('refuses %s with a 422 naming it, and nothing appears or moves in the temp folder', async (tag, value) => {
    const s3rverData = (rel: string) => rel.startsWith('s3rver-');
    const before = tree(privateTmp, s3rverData);
    const fields = await refusal({
      photo: base64(photo, 'photo.jpg'),
      tagged: { operation: 'metadata/write', input: 'photo', metadata: { Artist: 'Ada', [tag]: value } },
      read: { operation: 'metadata', input: 'tagged' },
    });
    expect(fields, `${tag} was accepted`).toBeDefined();
    const key = `tasks.tagged.metadata.${tag}`;
    expect(Object.keys(fields!)).toEqual([key]);
    expect(fields![key]!.join(' ')).toContain(tag);
    expect(tree(privateTmp, s3rverData)).toEqual(before);
    expect(strays()).toEqual([]);
  });

  it('refuses values that could carry more exiftool arguments or are not text or numbers', async () => {
    const fields = await refusal({
      photo: base64(photo, 'photo.jpg'),
      a: { operation: 'metadata/write', input: 'photo', metadata: { Artist: `Ada\n-HardLink=${outside('newline.jpg')}` } },
      b: { operation: 'metadata/write', input: 'photo', metadata: { Copyright: 'x\r-FileName=y' } },
      c: { operation: 'metadata/write', input: 'photo', metadata: { Title: 'nul\u0000byte' } },
      d: { operation: 'metadata/write', input: 'photo', metadata: { Title: { nested: 'object' } } },
      e: { operation: 'metadata/write', input: 'photo', metadata: { Title: 'x'.repeat(20_000) } },
      f: { operation: 'metadata/write', input: 'photo', metadata: { Rating: Number.POSITIVE_INFINITY } },
    });
    expect(Object.keys(fields ?? {}).sort()).toEqual([
      'tasks.a.metadata.Artist',
      'tasks.b.metadata.Copyright',
      'tasks.c.metadata.Title',
      'tasks.d.metadata.Title',
      'tasks.e.metadata.Title',
      'tasks.f.metadata.Rating',
    ]);
    expect(strays()).toEqual([]);
  });

  it('still writes real EXIF, XMP and PDF Info tags and reads them back', async () => {
    const t = await h.run({
      photo: base64(photo, 'photo.jpg'),
      doc: base64(pdf, 'doc.pdf'),
      tagged: {
        operation: 'metadata/write',
        input: 'photo',
        metadata: { Artist: 'Ada Lovelace', 'XMP-dc:Title': 'Engines', 'IFD0:Copyright': '1843 A. L.', 'xmp-photoshop:headline': 'Analytical', Rating: 4 },
      },
      taggedPdf: { operation: 'metadata/write', input: 'doc', metadata: { 'PDF:Title': 'Compilers', Author: 'Grace Hopper', Keywords: 'cobol, a-0' } },
      read: { operation: 'metadata', input: 'tagged' },
      readPdf: { operation: 'metadata', input: 'taggedPdf' },
    });
    expect(t.tagged, JSON.stringify(t.tagged?.message)).toMatchObject({ status: 'finished', engine: 'exiftool' });
    expect(t.read!.result!.metadata).toMatchObject({ Artist: 'Ada Lovelace', Title: 'Engines', Copyright: '1843 A. L.', Headline: 'Analytical', Rating: 4 });
    expect(t.readPdf!.result!.metadata).toMatchObject({ Title: 'Compilers', Author: 'Grace Hopper', Keywords: ['cobol, a-0'] });
    expect(strays()).toEqual([]);
  });

  it('describes the rule in discovery, from the schema that validates requests', () => {
    const [row] = discover({ 'filter[operation]': 'metadata/write', 'filter[input_format]': 'jpg', include: 'options' });
    const option = row!.options!.find((o) => o.name === 'metadata');
    expect(option).toMatchObject({ type: 'dictionary' });
    expect(option!.description).toMatch(/XMP-dc/);
    expect(option!.description).toMatch(/FileName/);
  });
});

exiftool.describe('POST /v2/jobs and POST /v2/metadata/write', () => {
  let backend: Awaited<ReturnType<typeof startStateBackend>>;
  let key: string;
  let jobsCreate: typeof JobsCreate.handler;
  let tasksCreate: typeof TasksCreate.handler;

  exiftool.beforeAll(async () => {
    backend = await startStateBackend();
    useLocalEnv({ dynamodb: backend.endpoint, table: backend.table, RATE_LIMIT: '1000' });
    const [fileApi, jobs, tasks] = await Promise.all([
      import('#lib/wiring/file-api.js') as Promise<typeof FileApi>,
      import('#functions/jobs/create.js'),
      import('#functions/tasks/create.js'),
    ]);
    jobsCreate = jobs.handler;
    tasksCreate = tasks.handler;
    key = (await fileApi.apiKeys().create({ scopes: ['task.read', 'task.write'] })).key;
  });
  afterAll(() => backend?.close());

  const post = (handler: typeof jobsCreate, urlPath: string, body: unknown, pathParameters?: Record<string, string>) =>
    call(handler, {
      method: 'POST',
      path: urlPath,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      pathParameters,
    });

  it.each(TRICKS)('answer 422 INVALID_DATA naming %s', async (tag, value) => {
    const job = await post(jobsCreate, '/v2/jobs', {
      tasks: {
        photo: { operation: 'import/url', url: 'https://example.com/photo.jpg' },
        tagged: { operation: 'metadata/write', input: 'photo', input_format: 'jpg', metadata: { [tag]: value } },
      },
    });
    expect(job.status).toBe(422);
    expect(job.json).toMatchObject({ code: 'INVALID_DATA', message: 'The given data was invalid.' });
    expect(Object.keys(job.json.errors)).toEqual([`tasks.tagged.metadata.${tag}`]);
    expect(job.json.errors[`tasks.tagged.metadata.${tag}`].join(' ')).toContain(tag);

    const task = await post(tasksCreate, '/v2/metadata/write', { input: 'a4a1c3f2-0000-4000-8000-000000000000', input_format: 'jpg', metadata: { [tag]: value } }, {
      operation: 'metadata/write',
    });
    expect(task.status).toBe(422);
    expect(task.json.code).toBe('INVALID_DATA');
    expect(Object.keys(task.json.errors)).toEqual([`metadata.${tag}`]);
    expect(task.json.errors[`metadata.${tag}`].join(' ')).toContain(tag);
  });
});
