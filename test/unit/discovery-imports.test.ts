/**
 * Discovery lists an import's own `filename` (the name the imported file gets; import/raw and
 * import/base64 need it), so a form built from discovery (the console's job builder) can ask for it.
 * For other operations `filename` stays among the arguments every task has and is not listed.
 */
import { describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { EngineRegistry } from '#lib/engines/core/registry.js';
import { discover } from '#lib/file-api/operations/discovery.js';

const registry = new EngineRegistry(
  parseEngineConfig({}),
  { capabilities: [{ engine: 'sharp', operation: 'thumbnail', inputs: ['png'], outputs: ['webp'], options: ['width', 'height'] }], order: { thumbnail: ['sharp'] } },
  [{ name: 'sharp', description: '', detect: () => ({ versions: [{ version: '0.35.5' }] }) }],
);
const optionsOf = (operation: string) =>
  discover({ 'filter[operation]': operation, include: 'options' }, { registry }).flatMap((row) => (row.options ?? []).map((o) => `${o.name}:${o.type}`));

describe('discovery of imports', () => {
  it('lists the fields an import/url, import/raw and import/base64 take, filename among them', () => {
    expect(optionsOf('import/url')).toEqual(['url:string', 'filename:string', 'headers:dictionary']);
    expect(optionsOf('import/raw')).toEqual(['file:string', 'filename:string']);
    expect(optionsOf('import/base64')).toEqual(['file:string', 'filename:string']);
  });

  it('keeps filename out of the options of other operations', () => {
    expect(optionsOf('thumbnail')).toEqual(['width:integer', 'height:integer']);
    expect(optionsOf('export/url')).not.toContain('filename:string');
  });
});
