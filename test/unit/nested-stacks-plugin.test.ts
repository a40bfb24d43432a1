/**
 * scripts/serverless-nested-stacks.cjs's split on a small template shaped like the packaged one: an HTTP
 * route with its integration and permission, a function with its role and log group, a queue consumer
 * whose mapping DependsOn the role, a role that uses a condition and a Fn::Sub of a root resource, and an
 * output of a moved resource. Read back through scripts/ci/stack-templates.ts's merged view, the split
 * must give every resource as it was.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mergedTemplate, readPackagedStack, ROOT_TEMPLATE, type Template } from '../../scripts/ci/stack-templates.js';

type Split = { root: Template; nested: { name: string; file: string; template: Template }[] };
const plugin = createRequire(import.meta.url)('../../scripts/serverless-nested-stacks.cjs') as {
  splitStack(t: Template, stacks: unknown[], url: (file: string) => unknown): Split;
  SELECTORS: Record<string, (r: unknown) => boolean>;
};

const STACKS = [
  { name: 'RoutesStack', file: 'nested-routes.json', takes: plugin.SELECTORS.httpRoutes },
  { name: 'RolesStack', file: 'nested-roles.json', takes: plugin.SELECTORS.functionRoles },
  { name: 'LogsStack', file: 'nested-logs.json', takes: plugin.SELECTORS.functionLogGroups },
];
const arn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const lambdaTrust = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: ['lambda.amazonaws.com'] }, Action: ['sts:AssumeRole'] }] };

function template(): Template {
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Parameters: { Region: { Type: 'String', Default: '' } },
    Conditions: { IsRegional: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'Region' }, ''] }] } },
    Resources: {
      HttpApi: { Type: 'AWS::ApiGatewayV2::Api', Properties: { Name: 'api', ProtocolType: 'HTTP' } },
      Sockets: { Type: 'AWS::ApiGatewayV2::Api', Properties: { Name: 'ws', ProtocolType: 'WEBSOCKET' } },
      Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
      Queue: { Type: 'AWS::SQS::Queue', Properties: {} },
      FnLogGroup: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: '/aws/lambda/svc-fn', RetentionInDays: 14 } },
      ApiLogGroup: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: '/aws/http-api/svc' } },
      FnRole: {
        Type: 'AWS::IAM::Role',
        Properties: {
          AssumeRolePolicyDocument: lambdaTrust,
          Policies: [
            {
              PolicyName: 'fn',
              PolicyDocument: {
                Statement: [
                  { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: arn('Queue') },
                  { Effect: 'Allow', Action: ['s3:GetObject'], Resource: [{ 'Fn::Sub': '${Bucket.Arn}/*' }, { 'Fn::If': ['IsRegional', { 'Fn::Sub': 'arn:${AWS::Partition}:s3:::${AWS::StackName}-${Region}/*' }, { Ref: 'AWS::NoValue' }] }] },
                ],
              },
            },
          ],
        },
      },
      Fn: {
        Type: 'AWS::Lambda::Function',
        DependsOn: ['FnLogGroup', 'FnRole'],
        Properties: { Role: arn('FnRole'), Environment: { Variables: { BUCKET: { Ref: 'Bucket' }, LOGS: { 'Fn::Sub': '${FnLogGroup}' } } } },
      },
      FnMapping: { Type: 'AWS::Lambda::EventSourceMapping', DependsOn: ['FnRole'], Properties: { EventSourceArn: arn('Queue'), FunctionName: arn('Fn') } },
      FnIntegration: { Type: 'AWS::ApiGatewayV2::Integration', Properties: { ApiId: { Ref: 'HttpApi' }, IntegrationUri: arn('Fn') } },
      FnRoute: {
        Type: 'AWS::ApiGatewayV2::Route',
        DependsOn: 'FnIntegration',
        Properties: { ApiId: { Ref: 'HttpApi' }, RouteKey: 'GET /x', Target: { 'Fn::Join': ['/', ['integrations', { Ref: 'FnIntegration' }]] } },
      },
      FnPermission: {
        Type: 'AWS::Lambda::Permission',
        Properties: { FunctionName: arn('Fn'), Principal: 'apigateway.amazonaws.com', SourceArn: { 'Fn::Join': ['', ['arn:', { Ref: 'HttpApi' }, '/*']] } },
      },
      SocketRoute: { Type: 'AWS::ApiGatewayV2::Route', Properties: { ApiId: { Ref: 'Sockets' }, RouteKey: '$default' } },
      SocketDeployment: { Type: 'AWS::ApiGatewayV2::Deployment', DependsOn: ['SocketRoute'], Properties: { ApiId: { Ref: 'Sockets' } } },
    },
    Outputs: { FnRoleArn: { Value: arn('FnRole') } },
  };
}

const url = (file: string) => ({ 'Fn::Join': ['', ['https://', { Ref: 'DeploymentBucket' }, `/dir/${file}`]] });

let dir: string | undefined;
/** Every folder a test made (one test may make two): all removed after it. */
const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
  dir = undefined;
});

/** The split as `serverless package` leaves it, read back by the CI checks' reader. */
async function packaged(split: Split) {
  dir = mkdtempSync(path.join(tmpdir(), 'nested-'));
  made.push(dir);
  writeFileSync(path.join(dir, ROOT_TEMPLATE), JSON.stringify(split.root));
  for (const n of split.nested) writeFileSync(path.join(dir, n.file), JSON.stringify(n.template));
  return readPackagedStack(dir);
}

const withoutDependsOn = (resources: Template['Resources']) => Object.fromEntries(Object.entries(resources).map(([id, { DependsOn: _, ...r }]) => [id, r]));

describe('the nested stacks plugin', () => {
  it('moves routes, roles and function log groups, keeping the WebSocket routes with their deployment', () => {
    const { root, nested } = plugin.splitStack(template(), STACKS, url);
    const ids = (name: string) => Object.keys(nested.find((n) => n.name === name)!.template.Resources).sort();
    expect(ids('RoutesStack')).toEqual(['FnIntegration', 'FnPermission', 'FnRoute']);
    expect(ids('RolesStack')).toEqual(['FnRole']);
    expect(ids('LogsStack')).toEqual(['FnLogGroup']);
    expect(Object.keys(root.Resources).sort()).toEqual(
      ['ApiLogGroup', 'Bucket', 'Fn', 'FnMapping', 'HttpApi', 'LogsStack', 'Queue', 'RolesStack', 'RoutesStack', 'SocketDeployment', 'SocketRoute', 'Sockets'].sort(),
    );
    expect(root.Resources.RoutesStack).toMatchObject({ Type: 'AWS::CloudFormation::Stack', Metadata: { PackagedTemplate: 'nested-routes.json' }, Properties: { TemplateURL: url('nested-routes.json') } });
  });

  it('turns references across stacks into parameters and outputs, and DependsOn into the stack', () => {
    const { root, nested } = plugin.splitStack(template(), STACKS, url);
    const routes = nested.find((n) => n.name === 'RoutesStack')!.template;
    const roles = nested.find((n) => n.name === 'RolesStack')!.template;
    // Inside a stack: its own resources as they were, the root's through parameters the root fills.
    expect(routes.Resources.FnRoute!.Properties!.Target).toEqual({ 'Fn::Join': ['/', ['integrations', { Ref: 'FnIntegration' }]] });
    expect(routes.Resources.FnRoute!.DependsOn).toEqual(['FnIntegration']);
    expect(routes.Resources.FnIntegration!.Properties!.IntegrationUri).toEqual({ Ref: 'FnArn' });
    expect(root.Resources.RoutesStack!.Properties!.Parameters).toEqual({ HttpApi: { Ref: 'HttpApi' }, FnArn: arn('Fn') });
    expect(Object.keys(routes.Parameters!).sort()).toEqual(['FnArn', 'HttpApi']);
    // A Fn::Sub of a root resource and a condition on a root parameter go along.
    expect(JSON.stringify(roles.Resources.FnRole)).toContain('"Fn::Sub":"${BucketArn}/*"');
    expect(roles.Conditions).toEqual(template().Conditions);
    expect(root.Resources.RolesStack!.Properties!.Parameters).toMatchObject({ BucketArn: arn('Bucket'), QueueArn: arn('Queue'), Region: { Ref: 'Region' } });
    // A nested stack's own name is not the root's: the root's is a parameter too.
    expect(JSON.stringify(roles.Resources.FnRole)).toContain('"Fn::Sub":"arn:${AWS::Partition}:s3:::${RootStackName}-${Region}/*"');
    expect(root.Resources.RolesStack!.Properties!.Parameters.RootStackName).toEqual({ Ref: 'AWS::StackName' });
    // The root reads moved resources from the stacks' outputs and waits for the stacks.
    expect(root.Resources.Fn!.Properties!.Role).toEqual({ 'Fn::GetAtt': ['RolesStack', 'Outputs.FnRoleArn'] });
    expect(root.Resources.Fn!.Properties!.Environment.Variables.LOGS).toEqual({ 'Fn::Sub': '${LogsStack.Outputs.FnLogGroup}' });
    expect(root.Resources.Fn!.DependsOn).toEqual(['LogsStack', 'RolesStack']);
    expect(root.Resources.FnMapping!.DependsOn).toEqual(['RolesStack']);
    expect(root.Resources.SocketDeployment!.DependsOn).toEqual(['SocketRoute']);
    expect(roles.Outputs).toEqual({ FnRoleArn: { Value: arn('FnRole') } });
    expect(root.Outputs).toEqual({ FnRoleArn: { Value: { 'Fn::GetAtt': ['RolesStack', 'Outputs.FnRoleArn'] } } });
    // Nothing of the routes stack is referred to from the root: no output.
    expect(routes.Outputs).toBeUndefined();
  });

  it('loses nothing: the merged view of the split is the template it split, each id once', async () => {
    const original = template();
    const split = plugin.splitStack(original, STACKS, url);
    expect(original).toEqual(template());
    const stack = await packaged(split);
    const merged = mergedTemplate(stack);
    expect(withoutDependsOn(merged.Resources)).toEqual(withoutDependsOn(original.Resources));
    const all = [...Object.keys(split.root.Resources), ...split.nested.flatMap((n) => Object.keys(n.template.Resources))];
    expect(new Set(all).size).toBe(all.length);
  });

  it('refuses a reference to a resource the template does not have', () => {
    const broken = template();
    broken.Resources.FnRoute!.Properties!.AuthorizerId = { Ref: 'Missing' };
    expect(() => plugin.splitStack(broken, STACKS, url)).toThrow(/Missing/);
  });
});

describe('the nested stacks plugin in the Serverless lifecycle', () => {
  const Plugin = createRequire(import.meta.url)('../../scripts/serverless-nested-stacks.cjs') as new (sls: unknown) => {
    hooks: Record<string, () => unknown>;
    uploadObject: (provider: unknown, params: { Bucket: string; Key: string; Body: string }) => Promise<void>;
  };
  const nestedStacks = [{ name: 'RoutesStack', file: 'nested-routes.json', takes: 'httpRoutes' }];

  function serverless(commands: string[]) {
    dir = mkdtempSync(path.join(tmpdir(), 'nested-plugin-'));
    made.push(dir);
    const t = template();
    t.Resources.Fn!.Properties!.Code = { S3Bucket: { Ref: 'ServerlessDeploymentBucket' }, S3Key: 'serverless/svc/dev/1-x/fn.zip' };
    return {
      serviceDir: dir,
      processedInput: { commands },
      service: { custom: { nestedStacks }, package: { artifactDirectoryName: 'serverless/svc/dev/1-x' }, provider: { compiledCloudFormationTemplate: t } },
      getProvider: () => ({ getServerlessDeploymentBucketName: () => Promise.resolve('deploy-bucket') }),
    };
  }

  it('splits when packaging, writing the nested templates beside the root, with their URL in the artifact folder', () => {
    const sls = serverless(['package']);
    new Plugin(sls).hooks['after:aws:package:finalize:mergeCustomProviderResources']!();
    const root = sls.service.provider.compiledCloudFormationTemplate;
    expect(root.Resources.FnRoute).toBeUndefined();
    expect(root.Resources.RoutesStack!.Properties!.TemplateURL).toEqual({
      'Fn::Join': ['', ['https://', { Ref: 'ServerlessDeploymentBucket' }, '.s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, '/serverless/svc/dev/1-x/nested-routes.json']],
    });
    const written = JSON.parse(readFileSync(path.join(dir!, '.serverless', 'nested-routes.json'), 'utf8')) as Template;
    expect(Object.keys(written.Resources).sort()).toEqual(['FnIntegration', 'FnPermission', 'FnRoute']);
  });

  it('leaves the template whole for any other command (serverless-offline, deploy function), and with NESTED_STACKS=off', () => {
    for (const [commands, off] of [[['offline', 'start'], false], [['deploy', 'function'], false], [['deploy'], true]] as const) {
      if (off) process.env.NESTED_STACKS = 'off';
      const sls = serverless([...commands]);
      new Plugin(sls).hooks['after:aws:package:finalize:mergeCustomProviderResources']!();
      delete process.env.NESTED_STACKS;
      expect(sls.service.provider.compiledCloudFormationTemplate).toEqual({ ...template(), Resources: expect.objectContaining({ FnRoute: expect.anything() }) });
    }
  });

  it('uploads each nested template into the deployment bucket at its TemplateURL before the stack update', async () => {
    const sls = serverless(['deploy']);
    const plugin = new Plugin(sls);
    plugin.hooks['after:aws:package:finalize:mergeCustomProviderResources']!();
    const uploads: Array<{ Bucket: string; Key: string; Body: string }> = [];
    plugin.uploadObject = (_provider, params) => Promise.resolve(void uploads.push(params));
    await plugin.hooks['after:aws:deploy:deploy:uploadArtifacts']!();
    expect(uploads.map((u) => [u.Bucket, u.Key])).toEqual([['deploy-bucket', 'serverless/svc/dev/1-x/nested-routes.json']]);
    expect(JSON.parse(uploads[0]!.Body)).toEqual(JSON.parse(readFileSync(path.join(dir!, '.serverless', 'nested-routes.json'), 'utf8')));
  });
});
