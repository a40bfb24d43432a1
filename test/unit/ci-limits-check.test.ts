/**
 * scripts/ci/check-limits.ts on small packaged stacks held in memory: a stack under 60 % of every limit
 * passes and says how many more functions fit; each limit crossed (resources of a nested stack, routes
 * of an API, a function's environment, a role's policies, too little room to grow) fails naming it; the
 * docs' block is replaced between its markers.
 */
import { ZipArchive } from 'archiver';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_MARGINS, checkLimits, docsBlock, LIMITS, replaceBlock, worstLength } from '../../scripts/ci/check-limits.js';
import type { PackagedStack, Resource, StackTemplate, Template } from '../../scripts/ci/stack-templates.js';

const part = (name: string, template: Template): StackTemplate => ({ name, file: `${name}.json`, template, bytes: JSON.stringify(template).length });

/** `n` functions, each with an HTTP route and integration in a nested stack of routes. */
function stack(n: number, extraRoutes = 0): PackagedStack {
  const root: Record<string, Resource> = { Api: { Type: 'AWS::ApiGatewayV2::Api', Properties: { ProtocolType: 'HTTP' } } };
  const routes: Record<string, Resource> = {};
  for (let i = 0; i < n; i++) {
    root[`F${i}`] = { Type: 'AWS::Lambda::Function', Properties: { Environment: { Variables: { TABLE: 'state', BUCKET: { Ref: 'Bucket' } } } } };
    routes[`I${i}`] = { Type: 'AWS::ApiGatewayV2::Integration', Properties: { ApiId: { Ref: 'ApiId' } } };
  }
  for (let i = 0; i < n + extraRoutes; i++) routes[`R${i}`] = { Type: 'AWS::ApiGatewayV2::Route', Properties: { ApiId: { Ref: 'ApiId' } } };
  root.Routes = { Type: 'AWS::CloudFormation::Stack', Metadata: { PackagedTemplate: 'Routes.json' }, Properties: { Parameters: { ApiId: { Ref: 'Api' } } } };
  return { root: part('root', { Resources: root }), nested: [part('Routes', { Parameters: { ApiId: { Type: 'String' } }, Resources: routes })] };
}

/** A zip of one file of `bytes` zeros (deflated, so small on disk). */
async function zeros(file: string, bytes: number) {
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const done = pipeline(archive, createWriteStream(file));
  const chunk = Buffer.alloc(1 << 20);
  const body = Readable.from((function* () {
    for (let left = bytes; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
  })());
  archive.append(body, { name: 'node_modules/engine/bin' });
  await archive.finalize();
  await done;
}

describe('the limits check', () => {
  it("holds every function's unzipped package to 60 % of 250 MB, but those its accepted margin names", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'limits-'));
    try {
      const [accepted] = ACCEPTED_MARGINS['unzipped bytes']?.only ?? ['EngineMediaLambdaFunction'];
      const s = stack(40);
      const code = (key: string) => ({ Code: { S3Key: `deploy/${key}.zip` } });
      Object.assign(s.root.template.Resources.F0!.Properties!, code('other'));
      s.root.template.Resources[accepted!] = { Type: 'AWS::Lambda::Function', Properties: code('accepted') };
      // 63 % of 250 MB each: above 60 %, within an accepted margin of 25 % (75 %).
      const over = Math.round(0.63 * LIMITS.unzippedBytes);
      await zeros(path.join(dir, 'other.zip'), over);
      await zeros(path.join(dir, 'accepted.zip'), over);
      const unzipped = (r: Awaited<ReturnType<typeof checkLimits>>) => r.failures.filter((f) => f.includes('unzipped bytes'));
      expect(unzipped(await checkLimits(s, dir))).toEqual([expect.stringMatching(/^F0: unzipped bytes .* above 60 %/)]);
      await zeros(path.join(dir, 'other.zip'), 1000);
      expect(unzipped(await checkLimits(s, dir))).toEqual(ACCEPTED_MARGINS['unzipped bytes'] ? [] : [expect.stringMatching(new RegExp(`^${accepted}: unzipped bytes`))]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('passes a stack under 60 % of every limit and counts the room for more functions', async () => {
    const report = await checkLimits(stack(40), '/nonexistent');
    expect(report.failures).toEqual([]);
    const routes = report.uses.find((u) => u.where === 'HTTP API Api' && u.limit === 'routes')!;
    expect(routes).toMatchObject({ used: 40, max: 300, perFunction: 1 });
    // The nested stack's 80 resources grow by 2 a function: (300 - 80) / 2 = 110 more before 60 %.
    expect(report.moreFunctions).toBe(110);
    expect(report.firstMet).toMatchObject({ where: 'nested stack Routes', limit: 'resources' });
  });

  it('fails a nested stack above 60 % of its 500 resources, naming it', async () => {
    const report = await checkLimits(stack(151), '/nonexistent');
    expect(report.failures).toContain('nested stack Routes: resources 302 of 500 (60 %), above 60 %');
    expect(report.failures.some((f) => f.startsWith('room for 0 more functions'))).toBe(true);
  });

  it('fails an API above 60 % of its 300 routes, and too little room to grow', async () => {
    const report = await checkLimits(stack(20, 165), '/nonexistent');
    expect(report.failures).toEqual([
      'HTTP API Api: routes 185 of 300 (62 %), above 60 %',
      'room for 0 more functions of the average kind (at least 20): HTTP API Api routes passes 60 % first',
    ]);
    const near = await checkLimits(stack(20, 150), '/nonexistent');
    // 170 routes, 8.5 a function: one more function would pass 180.
    expect(near.failures).toEqual(['room for 1 more functions of the average kind (at least 20): HTTP API Api routes passes 60 % first']);
  });

  it("fails a function's environment above 60 % of 4 KB, counting a value CloudFormation fills in at its longest", async () => {
    const s = stack(10);
    s.root.template.Resources.F3!.Properties!.Environment.Variables.BIG = 'x'.repeat(2400);
    const report = await checkLimits(s, '/nonexistent');
    expect(report.failures).toEqual([expect.stringMatching(/^F3: environment bytes 2[0-9]{3} of 4096 /)]);
    expect(worstLength({ Ref: 'Bucket' })).toBe(64);
    expect(worstLength({ 'Fn::Join': ['', ['https://', { Ref: 'Api' }, '.example']] })).toBe(8 + 64 + 8);
  });

  it("fails a role whose inline policies pass 60 % of IAM's 10,240 characters", async () => {
    const s = stack(10);
    const statement = (i: number) => ({ Effect: 'Allow', Action: ['s3:GetObject'], Resource: { 'Fn::GetAtt': [`Bucket${i}`, 'Arn'] } });
    s.root.template.Resources.Role = {
      Type: 'AWS::IAM::Role',
      Properties: { Policies: [{ PolicyName: 'p', PolicyDocument: { Version: '2012-10-17', Statement: Array.from({ length: 25 }, (_, i) => statement(i)) } }] },
    };
    const report = await checkLimits(s, '/nonexistent');
    expect(report.failures).toEqual([expect.stringMatching(/^Role: inline policy characters 7[0-9]{3} of 10240 /)]);
  });

  it('writes the counted figures between the docs markers', async () => {
    const report = await checkLimits(stack(40), '/nonexistent');
    const page = 'before\n<!-- limits:begin (npm run ci:limits -- --write-docs) -->\nold\n<!-- limits:end -->\nafter\n';
    const updated = replaceBlock(page, docsBlock(report));
    expect(updated).toMatch(/^before\n<!-- limits:begin[^\n]*\n```text\nwhere/);
    expect(updated).toContain('room for 110 more of the average kind');
    expect(updated).not.toContain('template bytes');
    expect(updated.endsWith('<!-- limits:end -->\nafter\n')).toBe(true);
    expect(() => replaceBlock('no markers', docsBlock(report))).toThrow(/no limits block/);
  });
});
