/** Which markup engine makes which pair: pandoc where installed, the markdown engine (marked, Chromium for PDF) without it. */
import { describe, expect, it } from 'vitest';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';

const withoutPandoc = (env: Record<string, string> = {}) => newEngineRegistry(parseEngineConfig({ PANDOC_PATH: '/nonexistent/pandoc', ...env }));

describe('markup engines', () => {
  // The bundled Chromium runs on Linux x64 only (elsewhere CHROMIUM_PATH names one).
  it.runIf(process.platform === 'linux' && process.arch === 'x64')('Markdown → PDF on the markdown engine, only while the chrome engine is there', () => {
    expect(withoutPandoc().select('convert', { inputFormat: 'md', outputFormat: 'pdf' })).toMatchObject({ engine: 'markdown' });
    const noChrome = withoutPandoc({ ENGINES_DISABLED: 'chrome' });
    expect(noChrome.check('convert', { inputFormat: 'md', outputFormat: 'pdf' })[0]?.field).toBe('output_format');
    expect(noChrome.select('convert', { inputFormat: 'md', outputFormat: 'html' })).toMatchObject({ engine: 'markdown' });
  });

  it('without pandoc no other markup format is offered, and the setting to change is named', () => {
    const r = withoutPandoc();
    expect(r.check('convert', { inputFormat: 'rst', outputFormat: 'html' })[0]?.field).toBe('input_format');
    expect(r.installation('pandoc').missing).toBe('/nonexistent/pandoc was not found; install it or set PANDOC_PATH');
  });
});
