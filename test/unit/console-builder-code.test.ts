/**
 * The job builder's code and its tasks: the curl, Node.js and Python code embed the job so that the
 * job parsed back from each is the job (quotes, unicode, nested options), point at the service, and
 * never carry a key; the task list keeps names unique and inputs pointing at earlier tasks.
 */
import { describe, expect, it } from 'vitest';
import { codeFor, curlCode, nodeCode, pythonCode, pythonLiteral, shellQuote } from '../../console/src/builder-code.js';
import {
  addTask,
  formatsOf,
  keepOptions,
  moveTask,
  nameProblem,
  operationGroups,
  removeTask,
  renameTask,
  rowFor,
  toJob,
  updateTask,
  type BuilderTask,
} from '../../console/src/builder-model.js';

const BASE = 'http://127.0.0.1:4010';
const job = {
  tasks: {
    "it's-import": { operation: 'import/url', url: "https://example.com/a file's name.png?x=1&y='2'", headers: { 'X-Note': 'naïve “quotes” \\ back\\slash $HOME `id`' } },
    'thumb ✓': { operation: 'thumbnail', input: "it's-import", output_format: 'webp', width: 64, height: 48, fit: 'crop', strip: false, extra: null },
    export: { operation: 'export/url', input: ['thumb ✓'], inline: true, archive_multiple_files: false, metadata: { nested: { list: [1, 2.5, 'é', { deep: true }] }, empty: {}, none: [] } },
  },
  tag: 'emoji 🎉 and \u2028 line separator',
};

/** Undoes a POSIX shell's single quoting of one word (what `sh` does with '...'\''...'). */
function unquoteShell(word: string): string {
  let out = '';
  let i = 0;
  while (i < word.length) {
    if (word[i] === "'") {
      const end = word.indexOf("'", i + 1);
      expect(end).toBeGreaterThan(i);
      out += word.slice(i + 1, end);
      i = end + 1;
    } else if (word[i] === '\\') {
      out += word[i + 1];
      i += 2;
    } else throw new Error(`unquoted character ${word[i]} at ${i}`);
  }
  return out;
}

/** A Python literal of dicts, lists, strings, numbers, None, True and False back to a value. */
function parsePython(literal: string): unknown {
  const json = literal.replace(/"(?:[^"\\]|\\.)*"|\bNone\b|\bTrue\b|\bFalse\b/g, (token) =>
    token === 'None' ? 'null' : token === 'True' ? 'true' : token === 'False' ? 'false' : token,
  );
  return JSON.parse(json) as unknown;
}

describe('the job as code', () => {
  it('curl posts the job to the service with the key from the environment, quoted for a shell', () => {
    const code = curlCode(job, `${BASE}/`);
    expect(code).toContain(`curl -X POST "${BASE}/v2/jobs"`);
    expect(code).toContain('-H "Authorization: Bearer $CLOUDCONVERT_API_KEY"');
    expect(code).toContain('-H "Content-Type: application/json"');
    const word = /-d ('[\s\S]*')\n$/.exec(code)![1]!;
    expect(JSON.parse(unquoteShell(word))).toEqual(job);
  });

  it('shellQuote makes any text one shell word', () => {
    for (const text of ["'", "a'b", "''", 'no quote', "$(rm -rf ~)'`x`"]) expect(unquoteShell(shellQuote(text))).toBe(text);
  });

  it('Node.js uses the cloudconvert SDK pointed at the service, creates, waits for and prints the job', () => {
    const code = nodeCode(job, BASE);
    expect(code).toContain("import CloudConvert from 'cloudconvert';");
    expect(code).toContain(`const SERVICE = "${BASE}";`);
    expect(code).toContain('new CloudConvert(process.env.CLOUDCONVERT_API_KEY)');
    expect(code).toContain('cloudConvert.callWithBase = (base, method, route, params, opts)');
    expect(code).toContain('cloudConvert.jobs.wait(job.id)');
    expect(code).toContain('cloudConvert.jobs.getExportUrls(job)');
    const embedded = /jobs\.create\(([\s\S]*?)\);\n\/\/ A wait/.exec(code)![1]!;
    expect(JSON.parse(embedded)).toEqual(job);
    // The embedded job is also a JavaScript expression of the same value (no key, nothing evaluated).
    expect(new Function(`return (${embedded});`)()).toEqual(job);
  });

  it('the Node.js base override maps the SDK host names as docs/using/sdks.md does', () => {
    const code = nodeCode(job, BASE);
    const body = /cloudConvert\.callWithBase = \(base, method, route, params, opts\) => \{([\s\S]*?)\n\};/.exec(code)![1]!;
    const route = new Function('SERVICE', 'callWithBase', 'base', `${body.replace(/method, route, params, opts/, 'undefined')}`) as (s: string, c: (b: string) => string, b: string) => string;
    const call = (base: string) => route(BASE, (b) => b, base);
    expect(call('https://api.cloudconvert.com/v2/')).toBe(`${BASE}/v2/`);
    expect(call('https://sync.api.cloudconvert.com/v2/')).toBe(`${BASE}/sync/v2/`);
    expect(call('https://api.sandbox.cloudconvert.com/v2/')).toBe(`${BASE}/sandbox/v2/`);
    expect(call('https://eu-central.sync.api.cloudconvert.com/v2/')).toBe(`${BASE}/eu-central/sync/v2/`);
  });

  it('Python uses the cloudconvert SDK with endpoint and sync_endpoint, and the job as a Python literal', () => {
    const code = pythonCode(job, BASE);
    expect(code).toContain('import cloudconvert');
    expect(code).toContain(`SERVICE = "${BASE}"`);
    expect(code).toContain('cloudconvert.configure(api_key=os.environ["CLOUDCONVERT_API_KEY"], endpoint=SERVICE, sync_endpoint=SERVICE + "/sync")');
    expect(code).toContain('cloudconvert.Job.wait(id=job["id"])');
    const literal = /Job\.create\(payload=([\s\S]*?)\)\n# A wait/.exec(code)![1]!;
    expect(literal).toContain('"strip": False');
    expect(literal).toContain('"extra": None');
    expect(literal).toContain('"deep": True');
    expect(parsePython(literal)).toEqual(job);
  });

  it('pythonLiteral writes empty containers and top-level values', () => {
    expect(pythonLiteral({})).toBe('{}');
    expect(pythonLiteral([])).toBe('[]');
    expect(pythonLiteral("it's")).toBe('"it\'s"');
    expect(pythonLiteral([true, null, 3])).toBe('[\n    True,\n    None,\n    3\n]');
  });

  it('no language carries a key or a token, only the variable', () => {
    for (const language of ['curl', 'node', 'python'] as const) {
      const code = codeFor(language, job, BASE);
      expect(code).toContain('CLOUDCONVERT_API_KEY');
      expect(code).not.toMatch(/Bearer [A-Za-z0-9]/);
    }
  });
});

const rows = [
  { operation: 'import/url', input_format: null, output_format: null, engine: null, credits: 0, meta: { group: 'other' }, options: [] },
  { operation: 'thumbnail', input_format: 'png', output_format: 'png', engine: 'sharp', credits: 1, meta: { group: 'image' }, options: [{ name: 'width', type: 'integer', default: null }] },
  { operation: 'thumbnail', input_format: 'png', output_format: 'webp', engine: 'sharp', credits: 1, meta: { group: 'image' }, options: [{ name: 'quality', type: 'integer', default: null }] },
  { operation: 'thumbnail', input_format: 'pdf', output_format: 'png', engine: 'poppler', credits: 1, meta: { group: 'image' }, options: [{ name: 'page', type: 'integer', default: 1 }] },
  { operation: 'merge', input_format: 'pdf', output_format: 'pdf', engine: 'qpdf', credits: 1, meta: { group: 'document' }, options: [] },
  { operation: 'export/url', input_format: null, output_format: null, engine: null, credits: 0, meta: { group: 'other' }, options: [] },
];

describe('the builder tasks', () => {
  const three = () => {
    let tasks: BuilderTask[] = [];
    tasks = addTask(tasks, 'import/url', 1);
    tasks = addTask(tasks, 'thumbnail', 2);
    tasks = addTask(tasks, 'export/url', 3);
    return tasks;
  };

  it('names new tasks uniquely and chains each to the one before (imports take none)', () => {
    let tasks = three();
    tasks = addTask(tasks, 'import/url', 4);
    expect(tasks.map((t) => [t.name, t.input])).toEqual([
      ['import-1', []],
      ['thumbnail-1', ['import-1']],
      ['export-1', ['thumbnail-1']],
      ['import-2', []],
    ]);
  });

  it('renaming follows into the inputs; a taken or empty name is a problem', () => {
    const tasks = renameTask(three(), 2, 'small');
    expect(tasks[2]!.input).toEqual(['small']);
    expect(nameProblem(tasks, 3, 'small')).toMatch(/Another task/);
    expect(nameProblem(tasks, 2, 'small')).toBeUndefined();
    expect(nameProblem(tasks, 2, ' ')).toMatch(/needs a name/);
  });

  it('moving or removing a task drops inputs that are no longer earlier tasks', () => {
    const moved = moveTask(three(), 3, -1);
    expect(moved.map((t) => [t.name, t.input])).toEqual([
      ['import-1', []],
      ['export-1', []],
      ['thumbnail-1', ['import-1']],
    ]);
    expect(moveTask(three(), 1, -1)).toEqual(three());
    expect(removeTask(three(), 2).map((t) => [t.name, t.input])).toEqual([
      ['import-1', []],
      ['export-1', []],
    ]);
  });

  it('makes the job: one input as a name, several as a list, formats and options', () => {
    let tasks = addTask(three(), 'merge', 4);
    tasks = updateTask(tasks, 2, { outputFormat: 'webp', options: { width: 10 } });
    tasks = updateTask(tasks, 4, { input: ['import-1', 'thumbnail-1'] });
    expect(toJob(tasks, ' mine ')).toEqual({
      tasks: {
        'import-1': { operation: 'import/url' },
        'thumbnail-1': { operation: 'thumbnail', input: 'import-1', output_format: 'webp', width: 10 },
        'export-1': { operation: 'export/url', input: 'thumbnail-1' },
        'merge-1': { operation: 'merge', input: ['import-1', 'thumbnail-1'] },
      },
      tag: 'mine',
    });
    expect(toJob([], '')).toEqual({ tasks: {} });
  });

  it('keeps only the options the task\'s new row lists', () => {
    const tasks = updateTask(three(), 2, { options: { width: 10, quality: 80 } });
    const kept = keepOptions(tasks, 2, new Set(['width', 'height']));
    expect(kept[1]!.options).toEqual({ width: 10 });
    expect(keepOptions(kept, 2, new Set(['width']))[1]).toBe(kept[1]);
  });

  it('groups operations and picks the discovery row matching the formats', () => {
    expect(operationGroups(rows)).toEqual([
      { label: 'Import', operations: ['import/url'] },
      { label: 'Process', operations: ['thumbnail', 'merge'] },
      { label: 'Export', operations: ['export/url'] },
    ]);
    expect(formatsOf(rows, 'thumbnail', '')).toEqual({ inputs: ['pdf', 'png'], outputs: ['png', 'webp'] });
    expect(formatsOf(rows, 'thumbnail', 'pdf')).toEqual({ inputs: ['pdf', 'png'], outputs: ['png'] });
    expect(formatsOf(rows, 'import/url', '')).toEqual({ inputs: [], outputs: [] });
    expect(rowFor(rows, { operation: 'thumbnail', inputFormat: '', outputFormat: 'webp' })!.options![0]!.name).toBe('quality');
    expect(rowFor(rows, { operation: 'thumbnail', inputFormat: 'pdf', outputFormat: '' })!.options![0]!.name).toBe('page');
    expect(rowFor(rows, { operation: 'thumbnail', inputFormat: 'pdf', outputFormat: 'webp' })!.options![0]!.name).toBe('quality');
  });
});
