import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mergedTemplate, readPackagedStack, ROOT_TEMPLATE } from '../../scripts/ci/stack-templates.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(files: Record<string, unknown>) {
  dir = mkdtempSync(path.join(tmpdir(), 'stack-'));
  for (const [name, body] of Object.entries(files)) writeFileSync(path.join(dir, name), JSON.stringify(body));
}

describe('the packaged stack with its nested stacks', () => {
  it('reads the nested templates the root names and merges them back into one view', async () => {
    write({
      [ROOT_TEMPLATE]: {
        Resources: {
          Fn: { Type: 'AWS::Lambda::Function', Properties: {} },
          Routes: {
            Type: 'AWS::CloudFormation::Stack',
            Metadata: { PackagedTemplate: 'nested-routes.json' },
            Properties: { Parameters: { FnArn: { 'Fn::GetAtt': ['Fn', 'Arn'] } } },
          },
        },
      },
      'nested-routes.json': {
        Parameters: { FnArn: { Type: 'String' } },
        Resources: { Permission: { Type: 'AWS::Lambda::Permission', Properties: { FunctionName: { Ref: 'FnArn' }, Action: 'lambda:InvokeFunction' } } },
      },
    });
    const stack = await readPackagedStack(dir);
    expect(stack.nested.map((n) => [n.name, n.file])).toEqual([['Routes', 'nested-routes.json']]);
    const merged = mergedTemplate(stack);
    expect(Object.keys(merged.Resources).sort()).toEqual(['Fn', 'Permission']);
    expect(merged.Resources.Permission!.Properties!.FunctionName).toEqual({ 'Fn::GetAtt': ['Fn', 'Arn'] });
  });

  it('refuses a nested stack without its template, and a resource in two stacks', async () => {
    write({ [ROOT_TEMPLATE]: { Resources: { S: { Type: 'AWS::CloudFormation::Stack', Properties: {} } } } });
    await expect(readPackagedStack(dir)).rejects.toThrow(/names no packaged template/);
    rmSync(dir, { recursive: true, force: true });
    write({
      [ROOT_TEMPLATE]: { Resources: { A: { Type: 'AWS::SNS::Topic' }, S: { Type: 'AWS::CloudFormation::Stack', Metadata: { PackagedTemplate: 'n.json' } } } },
      'n.json': { Resources: { A: { Type: 'AWS::SNS::Topic' } } },
    });
    const twice = await readPackagedStack(dir);
    expect(() => mergedTemplate(twice)).toThrow(/resource A is in two stacks/);
  });
});
