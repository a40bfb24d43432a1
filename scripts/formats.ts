/**
 * `npm run formats`: what GET /v2/convert/formats answers on this machine, counted: distinct input
 * formats, output formats, formats overall and convert pairs, in all and per family (image, video,
 * audio, archive, font, document, …), the pairs per engine, and the engines missing here with the
 * formats they would add and how to add them. The same registry as the functions' (the engine
 * settings of this environment: SHIPPED_ENGINES, FFMPEG_PATH, ENGINES_DISABLED…).
 *
 *   npm run formats              a table
 *   npm run formats -- --json    the same as JSON, for tests and CI
 */
import { parseArgs } from 'node:util';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { newEngineRegistry } from '#lib/file-api/operations/engines.js';
import { formatReport, reportLines } from '../local/format-report.js';

const { values } = parseArgs({ options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log('usage: npm run formats [-- --json]');
  process.exit(0);
}
const report = formatReport(newEngineRegistry(parseEngineConfig(process.env)));
console.log(values.json ? JSON.stringify(report, null, 2) : reportLines(report).join('\n'));
