/**
 * The role check (scripts/ci/check-roles.ts) on a saved copy of the real package: the parts of
 * `serverless package`'s template the check reads (functions, roles, event sources, destinations) and
 * the actions scripts/ci/aws-calls.ts derived from the code, written by
 * `tsx scripts/ci/check-roles.ts .serverless --fixture test/fixtures/ci-roles/packaged-roles.json`.
 * The copy passes; each deliberate break (an X-Ray statement removed, an engine role widened, a needed
 * action removed) fails naming the function and the action. CI runs the same check on the real package.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkRoles, formatRoles, globMatches, type Template } from '../../scripts/ci/check-roles.js';

type Json = any;
const saved = JSON.parse(readFileSync(new URL('../fixtures/ci-roles/packaged-roles.json', import.meta.url), 'utf8')) as {
  template: Template;
  code: Record<string, Record<string, string>>;
};
const codeOf = (code: Record<string, Record<string, string>>) => new Map(Object.entries(code).map(([id, m]) => [id, new Map(Object.entries(m))]));

/** A fresh copy to break. */
function copy() {
  return { template: structuredClone(saved.template), code: codeOf(saved.code) };
}
const statementsOf = (t: Template, fn: string): Json[] => {
  const role = t.Resources[fn]!.Properties.Role['Fn::GetAtt'][0];
  return t.Resources[role]!.Properties.Policies[0].PolicyDocument.Statement;
};
const run = (t: Template, code: Map<string, Map<string, string>>) => checkRoles(t, code);

describe('the role check on the packaged template', () => {
  it('passes the real package: every traced function can write traces, every role is what its code calls', () => {
    const { template, code } = copy();
    const report = run(template, code);
    expect(report.failures).toEqual([]);
    expect(report.rows.length).toBeGreaterThanOrEqual(57);
    expect(report.rows.every((r) => r.tracing && r.missing.length === 0 && r.widened.length === 0)).toBe(true);
    // The engines run in engine functions, whose code reaches no AWS service; the process functions that
    // invoke them keep the bookkeeping and are no engines.
    const engines = report.rows.filter((r) => r.engine);
    expect(engines.map((r) => r.name).sort()).toEqual(['engineChromium', 'engineImage', 'engineMedia', 'enginePdf']);
    expect(engines.every((r) => r.code === 0)).toBe(true);
    expect(report.rows.find((r) => r.name === 'processMedia')).toMatchObject({ engine: false });
    expect(formatRoles(report)).toContain('every role grants what its code calls, and no more');
  });

  it('fails on a removed X-Ray statement, naming the function and both actions', () => {
    const { template, code } = copy();
    const statements = statementsOf(template, 'SocketDisconnectLambdaFunction');
    statements.splice(statements.findIndex((s) => JSON.stringify(s.Action).includes('xray:')), 1);
    expect(run(template, code).failures).toEqual([
      'socketDisconnect: role lacks xray:PutTraceSegments, which it needs (tracing is Active)',
      'socketDisconnect: role lacks xray:PutTelemetryRecords, which it needs (tracing is Active)',
    ]);
  });

  it('fails on a widened engine role: a wildcard, an action its code does not call, the state table', () => {
    const { template, code } = copy();
    statementsOf(template, 'EngineMediaLambdaFunction').push({ Effect: 'Allow', Action: 's3:*', Resource: '*' });
    statementsOf(template, 'EnginePdfLambdaFunction').push({ Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: '*' });
    statementsOf(template, 'ProcessPdfLambdaFunction').push({ Effect: 'Allow', Action: ['dynamodb:Scan'], Resource: '*' });
    const { failures } = run(template, code);
    expect(failures.sort()).toEqual([
      'engineMedia: role grants the wildcard s3:* (widened)',
      'enginePdf: role grants dynamodb:GetItem, which its code does not call (widened)',
      'enginePdf: runs untrusted files, yet its role or code reaches dynamodb:GetItem (keys, tokens, balances, secrets)',
      'processPdf: role grants dynamodb:Scan, which its code does not call (widened)',
    ]);
  });

  it('counts a process function that runs its engines itself (ENGINE_ISOLATION=inline) as an engine: its state table fails', () => {
    const { template, code } = copy();
    delete template.Resources.ProcessMediaLambdaFunction!.Properties.Environment.Variables.ENGINE_ISOLATION;
    const { failures } = run(template, code);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^processMedia: runs untrusted files, yet its role or code reaches dynamodb:BatchGetItem, .*dynamodb:GetItem/);
  });

  it('fails on a removed needed action, with the path from the handler to the request', () => {
    const { template, code } = copy();
    const statements = statementsOf(template, 'SocketDisconnectLambdaFunction');
    const state = statements.find((s) => JSON.stringify(s.Action).includes('dynamodb:DeleteItem'));
    state.Action = state.Action.filter((a: string) => a !== 'dynamodb:DeleteItem');
    const { failures } = run(template, code);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^socketDisconnect: role lacks dynamodb:DeleteItem, which it needs \(handler → .*DynamoStateStore\.delete → lib\/adapters\/state\/dynamodb\.ts:\d+\)$/);
  });

  it('fails when the code calls more than the role grants (a new call in the code)', () => {
    const { template, code } = copy();
    code.get('FallbackLambdaFunction')!.set('s3:GetObject', 'handler → somewhere.ts:1');
    expect(run(template, code).failures).toEqual(['fallback: role lacks s3:GetObject, which it needs (handler → somewhere.ts:1)']);
  });

  it('requires the SQS event source actions of a consumer, and logs of every function', () => {
    const { template, code } = copy();
    const statements = statementsOf(template, 'WebhookDeliveriesLambdaFunction');
    statements.splice(statements.findIndex((s) => JSON.stringify(s.Action).includes('sqs:ReceiveMessage')), 1);
    const logs = statementsOf(template, 'FallbackLambdaFunction');
    logs.splice(logs.findIndex((s) => JSON.stringify(s.Action).includes('logs:')), 1);
    expect(run(template, code).failures).toEqual([
      'webhookDeliveries: role lacks sqs:ReceiveMessage, which it needs (its SQS event source)',
      'webhookDeliveries: role lacks sqs:DeleteMessage, which it needs (its SQS event source)',
      'webhookDeliveries: role lacks sqs:GetQueueAttributes, which it needs (its SQS event source)',
      'fallback: role lacks logs:CreateLogStream, which it needs (Lambda writes the function logs)',
      'fallback: role lacks logs:PutLogEvents, which it needs (Lambda writes the function logs)',
    ]);
  });

  it('fails on a NotAction statement and on a managed policy other than VPC access', () => {
    const { template, code } = copy();
    statementsOf(template, 'FallbackLambdaFunction').push({ Effect: 'Allow', NotAction: 'iam:*', Resource: '*' });
    const role = template.Resources.GraphqlIamRoleLambdaExecution!;
    role.Properties.ManagedPolicyArns = ['arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess'];
    const { failures } = run(template, code);
    expect(failures).toContain('fallback: role FallbackIamRoleLambdaExecution has a NotAction statement (grants everything else)');
    expect(failures).toContain('graphql: role GraphqlIamRoleLambdaExecution has the managed policy "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess" (widened: the function is in no VPC)');
  });
});

describe('IAM wildcards', () => {
  it('match as IAM matches them, without case', () => {
    expect(globMatches('s3:*', 's3:getobject')).toBe(true);
    expect(globMatches('*', 'dynamodb:getitem')).toBe(true);
    expect(globMatches('s3:get*', 's3:putobject')).toBe(false);
    expect(globMatches('s3:*object*', 's3:getobjecttagging')).toBe(true);
    expect(globMatches('s3:*objects', 's3:deleteobject')).toBe(false);
    expect(globMatches('s3:getobject', 's3:getobject')).toBe(true);
  });
});

describe('a new engine function (the shape of a credential-less engine: logs, X-Ray, a VPC)', () => {
  /** An engine function added by name (`engine…`), its handler under functions/engines/, its code calling nothing. */
  function withEngine(extra: Json[] = []) {
    const { template, code } = copy();
    const vpcPolicy = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole']] };
    const statements = [
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:CreateLogGroup', 'logs:PutLogEvents'], Resource: '*' },
      { Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: ['*'] },
      ...extra,
    ];
    template.Resources.EngineMediaIamRoleLambdaExecution = {
      Type: 'AWS::IAM::Role',
      Properties: { Policies: [{ PolicyDocument: { Statement: statements } }], ManagedPolicyArns: [vpcPolicy] },
    };
    template.Resources.EngineMediaLambdaFunction = {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Handler: 'functions/engines/media.handler',
        Role: { 'Fn::GetAtt': ['EngineMediaIamRoleLambdaExecution', 'Arn'] },
        TracingConfig: { Mode: 'Active' },
        VpcConfig: { SubnetIds: ['subnet-1'], SecurityGroupIds: ['sg-1'] },
      },
    };
    code.set('EngineMediaLambdaFunction', new Map());
    return { template, code };
  }

  it('passes with nothing but logs, X-Ray and the VPC access policy', () => {
    const { template, code } = withEngine();
    const report = run(template, code);
    expect(report.failures).toEqual([]);
    expect(report.rows.find((r) => r.name === 'engineMedia')).toMatchObject({ engine: true, missing: [], widened: [] });
  });

  it('fails when it is given the state table', () => {
    const { template, code } = withEngine([{ Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: { 'Fn::Sub': 'arn:aws:dynamodb:r:a:table/api-platform-dev-state' } }]);
    expect(run(template, code).failures).toEqual([
      'engineMedia: role grants dynamodb:GetItem, which its code does not call (widened)',
      'engineMedia: runs untrusted files, yet its role or code reaches dynamodb:GetItem (keys, tokens, balances, secrets)',
    ]);
  });

  it('fails when its code reaches a secret, even when the role would grant it', () => {
    const { template, code } = withEngine([{ Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: '*' }]);
    code.get('EngineMediaLambdaFunction')!.set('secretsmanager:GetSecretValue', 'handler → x.ts:1');
    expect(run(template, code).failures).toEqual([
      'engineMedia: runs untrusted files, yet its role or code reaches secretsmanager:GetSecretValue (keys, tokens, balances, secrets)',
    ]);
  });
});
