/**
 * scripts/ci/check-limits.ts on small packaged stacks held in memory: a stack under 60 % of every limit
 * passes and says how many more functions fit; each limit crossed (resources of a nested stack, routes
 * of an API, a function's environment, a role's policies, too little room to grow) fails naming it; the
 * docs' block is replaced between its markers.
 */
import { describe, expect, it } from 'vitest';
import { checkLimits, docsBlock, replaceBlock, worstLength } from '../../scripts/ci/check-limits.js';
import { limitsStack as stack } from '../support/limits-stack.js';

describe('the limits check', () => {
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
