import { describe, expect, it } from 'vitest';
import { ApiError } from '#lib/kernel/errors.js';
import { deriveJobStatus } from '#lib/file-api/records/model.js';
import { findCycle, planJob } from '#lib/file-api/tasks/plan.js';
import { HIDDEN } from '#lib/kernel/redact.js';
import { redactPayload } from '#lib/file-api/records/secrets.js';

function fieldsOf(body: unknown): Record<string, string[]> {
  try {
    planJob(body);
  } catch (err) {
    if (err instanceof ApiError) return err.fields ?? {};
    throw err;
  }
  throw new Error('expected the plan to be refused');
}

describe('job plans', () => {
  it('accepts a graph and normalises input to a list of names', () => {
    const plan = planJob({
      tag: 'x',
      tasks: {
        a: { operation: 'import/raw', file: 'hi', filename: 'a.txt' },
        b: { operation: 'export/url', input: 'a', inline: true, custom_flag: 1 },
      },
    });
    expect(plan.tag).toBe('x');
    const b = plan.tasks.find((t) => t.name === 'b')!;
    expect(b.inputNames).toEqual(['a']);
    expect(b.payload).toMatchObject({ operation: 'export/url', input: ['a'], inline: true, custom_flag: 1 });
  });

  it('refuses jobs and arguments too large for one stored record, naming the field', () => {
    const many = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`t${i}`, { operation: 'import/url', url: 'https://example.com/a' }]));
    expect(fieldsOf({ tasks: many }).tasks?.[0]).toMatch(/at most 200 tasks/);
    const big = { tasks: { up: { operation: 'export/upload', input: 'in', url: 'https://example.com/x', headers: { 'x-big': 'y'.repeat(70_000) } }, in: { operation: 'import/url', url: 'https://example.com/a' } } };
    expect(fieldsOf(big)['tasks.up']?.[0]).toMatch(/arguments take \d+ bytes; at most 65536/);
    // The content of import/base64 is stored as a file: it may be large.
    expect(() => planJob({ tasks: { b: { operation: 'import/base64', file: Buffer.alloc(300_000).toString('base64'), filename: 'a.bin' } } })).not.toThrow();
  });

  it('refuses a job without tasks under the field tasks', () => {
    expect(Object.keys(fieldsOf({}))).toEqual(['tasks']);
    expect(Object.keys(fieldsOf({ tasks: {} }))).toEqual(['tasks']);
    expect(Object.keys(fieldsOf({ tasks: [] }))).toEqual(['tasks']);
  });

  it('reports every problem at once, keyed by task and field', () => {
    const fields = fieldsOf({
      webhook_url: 'not a url',
      tasks: {
        'bad name!': { operation: 'import/raw' },
        a: { operation: 'export/url' },
        b: { operation: 'export/url', input: ['missing', 'b'] },
        c: { operation: 'thumbnail-of-nothing' },
        d: { operation: 'import/url', url: 'ftp://example.com/x' },
        e: { operation: 'import/raw', file: 'x', filename: 'x', input: 'a' },
      },
    });
    expect(Object.keys(fields).sort()).toEqual(
      ['tasks.a.input', 'tasks.b.input', 'tasks.bad name!', 'tasks.c.operation', 'tasks.d.url', 'tasks.e.input', 'webhook_url'].sort(),
    );
    expect(fields['tasks.b.input']).toHaveLength(2);
  });

  it('finds cycles and names them', () => {
    const fields = fieldsOf({
      tasks: {
        a: { operation: 'archive', output_format: 'zip', input: 'c' },
        b: { operation: 'archive', output_format: 'zip', input: 'a' },
        c: { operation: 'archive', output_format: 'zip', input: 'b' },
      },
    });
    expect(Object.values(fields).flat()[0]).toMatch(/cycle/);
    expect(findCycle([{ name: 'x', inputNames: [] }])).toBeUndefined();
    expect(findCycle([{ name: 'x', inputNames: ['y'] }, { name: 'y', inputNames: ['x'] }])).toEqual(['x', 'y', 'x']);
  });
});

describe('job status from task statuses', () => {
  const t = (status: 'waiting' | 'processing' | 'finished' | 'error', ignoreError = false) => ({ status, ignoreError });
  it('is waiting, then processing, then finished', () => {
    expect(deriveJobStatus([t('waiting'), t('waiting')])).toBe('waiting');
    expect(deriveJobStatus([t('finished'), t('waiting')])).toBe('processing');
    expect(deriveJobStatus([t('finished'), t('finished')])).toBe('finished');
  });
  it('ends in error once everything ended and a task failed, unless it ignores errors', () => {
    expect(deriveJobStatus([t('error'), t('processing')])).toBe('processing');
    expect(deriveJobStatus([t('error'), t('error')])).toBe('error');
    expect(deriveJobStatus([t('error', true), t('finished')])).toBe('finished');
  });
});

describe('secrets in task arguments', () => {
  it('hides keys, tokens, credential headers and URL passwords', () => {
    const shown = redactPayload({
      operation: 'export/s3',
      bucket: 'b',
      access_key_id: 'AKIA',
      secret_access_key: 'very-secret',
      session_token: 'tok',
      headers: { Authorization: 'Bearer x', Accept: 'text/plain' },
      url: 'https://user:pass@example.com/file?x=1',
    });
    expect(shown).toMatchObject({
      bucket: 'b',
      secret_access_key: HIDDEN,
      session_token: HIDDEN,
      headers: { Authorization: HIDDEN, Accept: 'text/plain' },
    });
    expect(JSON.stringify(shown)).not.toMatch(/very-secret|Bearer x|pass@/);
  });
});
