/**
 * scripts/ci/check-doc-figures.ts: the figures only the package knows, read from a packaged stack made
 * here (a root template, a nested one, zips that declare their sizes), and the marked figures of a page
 * checked and rewritten against them. The marks in the real docs all name figures the script has.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFigures, FIGURES, MARKED, packageFacts, pagesUnder, sameFigure, type PackageFacts } from '../../scripts/ci/check-doc-figures.js';
import { ROOT_TEMPLATE } from '../../scripts/ci/stack-templates.js';

const MB = 1024 * 1024;
let dir: string;
let facts: PackageFacts;

/**
 * A file that reads as a zip of `zipped` bytes whose entries unzip to `sizes`: zeros, then the central
 * directory and its end record (what the size figures read; no entry's data is there to extract).
 */
function writeZip(file: string, zipped: number, sizes: number[]) {
  const records = sizes.map((size, i) => {
    const name = Buffer.from(`entry${i}`);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(name.length, 28);
    return Buffer.concat([header, name]);
  });
  const directory = Buffer.concat(records);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(sizes.length, 8);
  end.writeUInt16LE(sizes.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(zipped - directory.length - end.length, 16);
  writeFileSync(file, Buffer.concat([Buffer.alloc(zipped - directory.length - end.length), directory, end]));
}

const lambda = (zip: string) => ({ Type: 'AWS::Lambda::Function', Properties: { Code: { S3Bucket: 'b', S3Key: `deploy/${zip}` } } });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'doc-figures-'));
  // The PDF engine's sizes: 62 MiB zipped, 108 MiB unzipped.
  writeZip(path.join(dir, 'enginePdf.zip'), 62 * MB, [100 * MB, 8 * MB]);
  writeZip(path.join(dir, 'jobsGet.zip'), 300_000, [1_000_000]);
  const alarm = (metrics: number) => ({
    Type: 'AWS::CloudWatch::Alarm',
    Properties: { Metrics: [{ Id: 'sum', Expression: 'SUM(METRICS())' }, ...Array.from({ length: metrics }, (_, i) => ({ Id: `m${i}`, MetricStat: {} }))] },
  });
  const root = {
    Resources: {
      EnginePdfLambdaFunction: lambda('enginePdf.zip'),
      JobsGetLambdaFunction: lambda('jobsGet.zip'),
      ProcessOfficeLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: { Code: { ImageUri: 'acct.dkr.ecr/office@sha256:1' } } },
      HttpApi: { Type: 'AWS::ApiGatewayV2::Api', Properties: { ProtocolType: 'HTTP' } },
      SocketApi: { Type: 'AWS::ApiGatewayV2::Api', Properties: { ProtocolType: 'WEBSOCKET' } },
      RouteA: { Type: 'AWS::ApiGatewayV2::Route', Properties: { ApiId: { Ref: 'HttpApi' } } },
      Connect: { Type: 'AWS::ApiGatewayV2::Route', Properties: { ApiId: { Ref: 'SocketApi' } } },
      DeadLetters: alarm(7),
      EngineDeadLetters: alarm(4),
      Routes: { Type: 'AWS::CloudFormation::Stack', Metadata: { PackagedTemplate: 'nested-routes.json' }, Properties: { Parameters: { Api: { Ref: 'HttpApi' } } } },
    },
  };
  const nested = { Parameters: { Api: { Type: 'String' } }, Resources: { RouteB: { Type: 'AWS::ApiGatewayV2::Route', Properties: { ApiId: { Ref: 'Api' } } } } };
  writeFileSync(path.join(dir, ROOT_TEMPLATE), JSON.stringify(root));
  writeFileSync(path.join(dir, 'nested-routes.json'), JSON.stringify(nested));
  facts = await packageFacts(dir);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const render = (name: string, arg?: string) => FIGURES[name]!.render(facts, arg);

describe('the figures of a packaged stack', () => {
  it('counts resources per stack, functions, routes per API (nested ones included), alarms and their metrics', () => {
    expect(facts.stacks).toEqual([
      { name: 'root', resources: 10 },
      { name: 'Routes', resources: 1 },
    ]);
    expect([render('resources'), render('resources', 'Routes'), render('resources-total'), render('stacks')]).toEqual(['10', '1', '11', '2']);
    expect([render('functions'), render('routes'), render('http-routes'), render('websocket-routes')]).toEqual(['3', '3', '2', '1']);
    expect([render('alarms'), render('alarm-metrics'), render('alarm-cost')]).toEqual(['2', '11', '$1.10']);
    expect(render('count', 'AWS::CloudWatch::Alarm')).toBe('2');
  });

  it("reads each function's zip, in MiB, and knows a container image has none", () => {
    expect(facts.functions.map((f) => [f.name, f.image])).toEqual([
      ['enginePdf', false],
      ['jobsGet', false],
      ['processOffice', true],
    ]);
    expect([render('zipped', 'enginePdf'), render('unzipped', 'enginePdf')]).toEqual(['62', '108']);
    expect(render('engine-sizes')).toContain('| `enginePdf` | 62 | 108 |');
    expect(render('engine-sizes')).toContain('| `processOffice` | container image | - |');
    expect(render('engine-sizes')).toContain('| all 2 zips | 62 | 109 |');
    expect([render('zipped', 'jobsGet'), render('unzipped', 'jobsGet')]).toEqual(['0.3', '1.0']);
    expect(() => render('zipped', 'engineNone')).toThrow('no function engineNone');
  });
});

describe('a page with marked figures', () => {
  const page = [
    'The PDF engine is <!-- figure:zipped:enginePdf -->62<!-- /figure:zipped:enginePdf --> MiB zipped,',
    '<!-- figure:unzipped:enginePdf -->108<!-- /figure:unzipped:enginePdf --> unzipped; the',
    '<!-- figure:alarm-metrics -->11<!-- /figure:alarm-metrics --> metrics of the alarms cost',
    '<!-- figure:alarm-cost -->$1.10<!-- /figure:alarm-cost --> a month.',
    '<!-- figure:engine-sizes -->',
    'table',
    '<!-- /figure:engine-sizes -->',
  ].join('\n');

  it('passes when it says what the package says, but for the table still to be written', () => {
    const result = checkFigures('p.md', page, facts);
    expect(result.checked).toBe(5);
    expect(result.problems).toEqual([]);
    expect(result.wrong).toEqual([expect.stringContaining('figure:engine-sizes says "table"')]);
    expect(checkFigures('p.md', result.written, facts)).toMatchObject({ checked: 5, wrong: [], problems: [] });
    expect(result.written).toContain(`<!-- figure:engine-sizes -->${render('engine-sizes')}<!-- /figure:engine-sizes -->`);
  });

  it("fails on the README's old figures (21/38 MB, 7 metrics at $0.70) and writes the package's instead", () => {
    const old = page.replace('>62<', '>21<').replace('>108<', '>38<').replace('>11<', '>7<').replace('>$1.10<', '>$0.70<');
    const result = checkFigures('p.md', old, facts);
    expect(result.wrong.filter((w) => !w.includes('engine-sizes'))).toEqual([
      'p.md: figure:zipped:enginePdf says "21", the package "62"',
      'p.md: figure:unzipped:enginePdf says "38", the package "108"',
      'p.md: figure:alarm-metrics says "7", the package "11"',
      'p.md: figure:alarm-cost says "$0.70", the package "$1.10"',
    ]);
    expect(checkFigures('p.md', result.written, facts).wrong).toEqual([]);
  });

  it('takes sizes within a tenth and counts only exactly', () => {
    expect(sameFigure('60', '62', FIGURES.zipped!.tolerance)).toBe(true);
    expect(sameFigure('55', '62', FIGURES.zipped!.tolerance)).toBe(false);
    expect(sameFigure('12', '11', FIGURES['alarm-metrics']!.tolerance)).toBe(false);
    expect(sameFigure('| `enginePdf` | 61 | 110 |', '| `enginePdf` | 62 | 108 |', 0.1)).toBe(true);
    expect(sameFigure('| `engineMedia` | 62 | 108 |', '| `enginePdf` | 62 | 108 |', 0.1)).toBe(false);
    expect(sameFigure('1,000', '1000', 0)).toBe(true);
  });

  it('refuses a mark that names no figure, or a function the package lacks', () => {
    const result = checkFigures('p.md', 'a <!-- figure:lambdas -->3<!-- /figure:lambdas --> b <!-- figure:zipped:engineNone -->1<!-- /figure:zipped:engineNone -->', facts);
    expect(result.checked).toBe(0);
    expect(result.problems).toEqual([expect.stringContaining('figure:lambdas is no figure'), 'p.md: figure:zipped:engineNone: no function engineNone in the package']);
  });
});

describe('the marks in the documentation', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const marks = pagesUnder(root).flatMap((p) => [...readFileSync(path.join(root, p), 'utf8').matchAll(MARKED)].map((m) => [p, m[1]!]));

  it('name figures the check has (it then runs on the package in CI: npm run ci:doc-figures)', () => {
    expect(marks.length).toBeGreaterThan(0);
    for (const [page, name] of marks) expect(Object.keys(FIGURES), `${page}: figure:${name}`).toContain(name);
  });
});
