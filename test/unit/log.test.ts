import { describe, expect, it } from 'vitest';
import { createLogger } from '#lib/kernel/log.js';

describe('structured logs', () => {
  it('writes one JSON line per event with bound context, and redacts secrets', () => {
    const lines: string[] = [];
    const log = createLogger({ service: 's' }, { write: (l) => lines.push(l) }).child({ requestId: 'r1' });
    log.info('export', { taskId: 't', payload: { secret_access_key: 'AKIA-very-secret', bucket: 'b' } });
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ level: 'info', msg: 'export', service: 's', requestId: 'r1', taskId: 't' });
    expect(entry.payload).toEqual({ secret_access_key: '[hidden]', bucket: 'b' });
    expect(lines[0]).not.toContain('AKIA-very-secret');
  });

  it('drops events below the level', () => {
    const lines: string[] = [];
    const log = createLogger({}, { level: 'warn', write: (l) => lines.push(l) });
    log.info('quiet');
    log.error('loud');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['loud']);
  });
});
