/**
 * A local Serverless Framework plugin: splits the packaged template into a root stack and nested stacks
 * (AWS::CloudFormation::Stack) by what changes together, so that every stack stays well under
 * CloudFormation's 500 resources with room for the functions of the next issues (issue 28;
 * `npm run ci:limits` checks the margins). Runs only when packaging or deploying, after every other
 * plugin has added its resources; serverless-offline never packages, so local runs see one template.
 *
 * - `custom.nestedStacks` lists the nested stacks: `{ name, file, takes }`, `takes` one of the selectors
 *   below. A root resource goes to the first stack whose selector takes it.
 * - A nested resource keeps its logical id. What it refers to outside its stack (a root resource, a root
 *   parameter, another nested stack's resource) becomes a parameter of its stack, filled by the root with
 *   the same Ref or Fn::GetAtt; the conditions it uses are copied with it. A root reference to a nested
 *   resource becomes an Fn::GetAtt of the stack's output, a DependsOn on it a DependsOn on the stack.
 * - The nested templates are written beside the root's in .serverless/ and named by the stack
 *   resource's `Metadata.PackagedTemplate` (scripts/ci/stack-templates.ts reads them); `serverless
 *   deploy` uploads them into the deployment's artifact directory, where `TemplateURL` points, before
 *   the stack is updated.
 * - NESTED_STACKS=off packages one stack, as before the split (a stage deployed before it, until migrated).
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** Which resources each nested stack takes (serverless.yml's `custom.nestedStacks[].takes`). */
const SELECTORS = {
  // The HTTP API's routes, their integrations and the permissions that let API Gateway invoke the
  // functions: they change when the API does. The WebSocket API's stay in the root with its Deployment,
  // which DependsOn its routes.
  httpRoutes: (r) =>
    (['AWS::ApiGatewayV2::Route', 'AWS::ApiGatewayV2::Integration'].includes(r.Type) && isRefTo(r.Properties?.ApiId, 'HttpApi')) ||
    (r.Type === 'AWS::Lambda::Permission' && r.Properties?.Principal === 'apigateway.amazonaws.com' && mentions(r.Properties?.SourceArn, 'HttpApi')),
  // Each function's role: changes when its code's calls do (`npm run ci:roles`).
  functionRoles: (r) => r.Type === 'AWS::IAM::Role' && JSON.stringify(r.Properties?.AssumeRolePolicyDocument ?? {}).includes('lambda.amazonaws.com'),
  // The functions' log groups: created once, changed only with the retention.
  functionLogGroups: (r) => r.Type === 'AWS::Logs::LogGroup' && String(r.Properties?.LogGroupName ?? '').startsWith('/aws/lambda/'),
};

/** Pseudo parameters whose value differs in a nested stack: the root's are passed as these parameters. */
const ROOT_PSEUDO = { 'AWS::StackName': 'RootStackName', 'AWS::StackId': 'RootStackId' };
const samePseudo = (name) => name.startsWith('AWS::') && !(name in ROOT_PSEUDO);

const isRefTo = (value, id) => value && typeof value === 'object' && value.Ref === id;
const mentions = (value, id) => JSON.stringify(value ?? null).includes(`"Ref":"${id}"`);
const alnum = (s) => s.replace(/[^A-Za-z0-9]/g, '');
const list = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const SUB_VARIABLE = /\$\{(?!!)([^}]+)\}/g;

/**
 * Rewrites the references of `value` (Ref, Fn::GetAtt, Fn::Sub variables, Condition names): `onRef(id)`
 * and `onGetAtt(id, attribute)` return the replacement expression or undefined to keep it; `onSub(name)`
 * the replacement variable name; `onCondition(name)` is told each condition used.
 */
function rewrite(value, hooks) {
  if (Array.isArray(value)) return value.map((v) => rewrite(v, hooks));
  if (!value || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1) {
    const [key] = keys;
    const arg = value[key];
    if (key === 'Ref' && typeof arg === 'string' && !samePseudo(arg)) return hooks.onRef(arg) ?? value;
    if (key === 'Fn::GetAtt') {
      const [id, ...attr] = typeof arg === 'string' ? arg.split('.') : arg;
      if (typeof id === 'string' && attr.every((a) => typeof a === 'string')) return hooks.onGetAtt(id, attr.join('.')) ?? value;
    }
    if (key === 'Fn::Sub') {
      const [text, vars] = typeof arg === 'string' ? [arg, undefined] : arg;
      const own = new Set(Object.keys(vars ?? {}));
      const replaced = text.replace(SUB_VARIABLE, (whole, name) => (own.has(name) || samePseudo(name) ? whole : `\${${hooks.onSub(name) ?? name}}`));
      return { 'Fn::Sub': vars === undefined ? replaced : [replaced, rewrite(vars, hooks)] };
    }
    if (key === 'Condition' && typeof arg === 'string') hooks.onCondition?.(arg);
    if (key === 'Fn::If' && Array.isArray(arg) && typeof arg[0] === 'string') hooks.onCondition?.(arg[0]);
  }
  return Object.fromEntries(keys.map((k) => [k, rewrite(value[k], hooks)]));
}

/** A stack's outputs for the root's references into it: `Outputs.<name>` of the stack resource. */
function outputName(id, attribute) {
  return attribute ? alnum(`${id}${attribute}`) : id;
}

/**
 * Splits `template` (left unchanged) into a root and the nested stacks `stacks` describes
 * (`{ name, file, takes: (resource, resources) => boolean, description? }`); `templateUrl(file)` is the
 * expression of a nested template's S3 URL. Returns `{ root, nested: [{ name, file, template }] }`.
 */
function splitStack(template, stacks, templateUrl) {
  const resources = template.Resources;
  const home = new Map();
  for (const [id, resource] of Object.entries(resources)) {
    if (resources[id].Type === 'AWS::CloudFormation::Stack') continue;
    const stack = stacks.find((s) => s.takes(resource, resources));
    if (stack) home.set(id, stack.name);
  }
  for (const s of stacks) if (resources[s.name]) throw new Error(`nested stack ${s.name}: the template has a resource of that id`);
  const parts = new Map(stacks.map((s) => [s.name, { ...s, resources: {}, parameters: {}, values: {}, outputs: {}, conditions: new Set(), dependsOn: new Set() }]));

  // How the root says `id` (or its attribute): its own resource or parameter, or a nested stack's output.
  const inRoot = (id, attribute) => {
    const owner = home.get(id);
    if (!owner) return attribute ? { 'Fn::GetAtt': [id, attribute] } : { Ref: id };
    const name = outputName(id, attribute);
    const value = attribute ? { 'Fn::GetAtt': [id, attribute] } : { Ref: id };
    const outputs = parts.get(owner).outputs;
    if (outputs[name] && JSON.stringify(outputs[name].Value) !== JSON.stringify(value)) throw new Error(`${owner}: two outputs would be named ${name}`);
    outputs[name] = { Value: value };
    return { 'Fn::GetAtt': [owner, `Outputs.${name}`] };
  };
  const known = (id) => id in resources || id in (template.Parameters ?? {});

  for (const [id, owner] of home) {
    const part = parts.get(owner);
    const local = (other) => home.get(other) === owner;
    // What the nested resource refers to outside: a parameter of its stack, filled by the root.
    const parameter = (other, attribute) => {
      if (ROOT_PSEUDO[other]) {
        part.parameters[ROOT_PSEUDO[other]] = { Type: 'String' };
        part.values[ROOT_PSEUDO[other]] = { Ref: other };
        return ROOT_PSEUDO[other];
      }
      if (!known(other)) throw new Error(`${id} refers to ${other}, which the template does not have`);
      const name = outputName(other, attribute);
      if (local(name)) throw new Error(`${id}: parameter ${name} would clash with a resource of that id in ${owner}`);
      part.parameters[name] = { Type: attribute ? 'String' : (template.Parameters?.[other]?.Type ?? 'String') };
      part.values[name] = inRoot(other, attribute);
      return name;
    };
    const { DependsOn, ...body } = resources[id];
    const moved = rewrite(body, {
      onRef: (other) => (local(other) ? undefined : { Ref: parameter(other) }),
      onGetAtt: (other, attribute) => (local(other) ? undefined : { Ref: parameter(other, attribute) }),
      onSub: (name) => {
        const [other, ...attr] = name.split('.');
        return local(other) ? undefined : parameter(other, attr.join('.') || undefined);
      },
      onCondition: (name) => part.conditions.add(name),
    });
    if (body.Condition) part.conditions.add(body.Condition);
    const kept = list(DependsOn).filter(local);
    for (const other of list(DependsOn)) if (!local(other)) part.dependsOn.add(home.get(other) ?? other);
    part.resources[id] = kept.length ? { ...moved, DependsOn: kept } : moved;
  }

  // The root: references into nested stacks become their outputs, DependsOn their stacks.
  const toRoot = (value) =>
    rewrite(value, {
      onRef: (id) => (home.has(id) ? inRoot(id) : undefined),
      onGetAtt: (id, attribute) => (home.has(id) ? inRoot(id, attribute) : undefined),
      onSub: (name) => {
        const [id, ...attr] = name.split('.');
        if (!home.has(id)) return undefined;
        return `${home.get(id)}.${inRoot(id, attr.join('.') || undefined)['Fn::GetAtt'][1]}`;
      },
    });
  const rootResources = {};
  for (const [id, resource] of Object.entries(resources)) {
    if (home.has(id)) continue;
    const { DependsOn, ...body } = resource;
    const out = toRoot(body);
    const depends = [...new Set(list(DependsOn).map((d) => home.get(d) ?? d))];
    rootResources[id] = DependsOn === undefined ? out : { ...out, DependsOn: depends };
  }
  const root = { ...template, Resources: rootResources };
  if (template.Outputs) root.Outputs = toRoot(template.Outputs);

  const nested = [];
  for (const part of parts.values()) {
    if (!Object.keys(part.resources).length) continue;
    const conditions = copyConditions(template.Conditions ?? {}, part);
    const body = {
      AWSTemplateFormatVersion: '2010-09-09',
      Description: part.description ?? `${part.name} of ${template.Description ?? 'the stack'}`,
      ...(Object.keys(part.parameters).length ? { Parameters: part.parameters } : {}),
      ...(Object.keys(conditions).length ? { Conditions: conditions } : {}),
      Resources: part.resources,
      ...(Object.keys(part.outputs).length ? { Outputs: part.outputs } : {}),
    };
    const dependsOn = [...part.dependsOn].filter((d) => d !== part.name);
    root.Resources[part.name] = {
      Type: 'AWS::CloudFormation::Stack',
      ...(dependsOn.length ? { DependsOn: dependsOn } : {}),
      Metadata: { PackagedTemplate: part.file },
      Properties: { TemplateURL: templateUrl(part.file), ...(Object.keys(part.values).length ? { Parameters: part.values } : {}) },
    };
    nested.push({ name: part.name, file: part.file, template: body });
  }
  return { root, nested };
}

/** The conditions a nested stack uses, with those they use; their parameter references become the stack's. */
function copyConditions(all, part) {
  const copied = {};
  const pending = [...part.conditions];
  while (pending.length) {
    const name = pending.pop();
    if (copied[name]) continue;
    if (!all[name]) throw new Error(`condition ${name} is not in the template`);
    copied[name] = rewrite(all[name], {
      onRef: (id) => {
        const name = ROOT_PSEUDO[id] ?? id;
        part.parameters[name] = { Type: 'String' };
        part.values[name] = { Ref: id };
        return name === id ? undefined : { Ref: name };
      },
      onGetAtt: () => undefined,
      onSub: () => undefined,
      onCondition: (other) => pending.push(other),
    });
  }
  return copied;
}

class NestedStacks {
  constructor(serverless, options, { log } = {}) {
    this.serverless = serverless;
    this.options = options ?? {};
    this.log = log;
    // osls's own upload (its S3 client and retries), as for the root template.
    this.uploadObject = (provider, params) => require('serverless/lib/plugins/aws/lib/upload-s3-object')(provider, params);
    this.hooks = {
      // After every plugin's resources and the custom ones are in, before the state is saved.
      'after:aws:package:finalize:mergeCustomProviderResources': () => this.split(),
      // Where the root's TemplateURLs point, before CloudFormation reads them.
      'after:aws:deploy:deploy:uploadArtifacts': () => this.upload(),
    };
  }

  get dir() {
    return path.join(this.serverless.serviceDir, '.serverless');
  }

  get stacks() {
    return (this.serverless.service.custom?.nestedStacks ?? []).map((s) => {
      const takes = SELECTORS[s.takes];
      if (!takes) throw new Error(`custom.nestedStacks ${s.name}: unknown selector ${s.takes} (${Object.keys(SELECTORS).join(', ')})`);
      return { ...s, takes };
    });
  }

  split() {
    const commands = this.serverless.processedInput?.commands ?? [];
    if (!['package', 'deploy'].includes(commands[0]) || commands[1] === 'function') return;
    // A stage deployed as one stack before the split keeps that layout until it is migrated
    // (docs/operating/deploying.md, "Nested stacks and limits").
    if (process.env.NESTED_STACKS === 'off') return this.log?.notice?.('NESTED_STACKS=off: one stack, as before the split');
    const provider = this.serverless.service.provider;
    const template = provider.compiledCloudFormationTemplate;
    const artifactDir = this.serverless.service.package.artifactDirectoryName;
    const bucket = Object.values(template.Resources).find((r) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Code?.S3Bucket)?.Properties.Code.S3Bucket ?? {
      Ref: 'ServerlessDeploymentBucket',
    };
    const templateUrl = (file) => ({ 'Fn::Join': ['', ['https://', bucket, '.s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, `/${artifactDir}/${file}`]] });
    const { root, nested } = splitStack(template, this.stacks, templateUrl);
    fs.mkdirSync(this.dir, { recursive: true });
    for (const n of nested) {
      fs.writeFileSync(path.join(this.dir, n.file), JSON.stringify(n.template, null, 2));
      this.log?.verbose?.(`nested stack ${n.name}: ${Object.keys(n.template.Resources).length} resources (${n.file})`);
    }
    provider.compiledCloudFormationTemplate = root;
  }

  /** Each nested template into the artifact folder, as osls uploads the root's (its S3 client, the bucket's encryption). */
  async upload() {
    const service = this.serverless.service;
    if (service.provider.shouldNotDeploy) return;
    const withEncryption = require('serverless/lib/aws/set-s3-upload-encryption-options');
    const provider = this.serverless.getProvider('aws');
    const bucket = await provider.getServerlessDeploymentBucketName();
    for (const resource of Object.values(service.provider.compiledCloudFormationTemplate.Resources)) {
      const file = resource.Type === 'AWS::CloudFormation::Stack' ? resource.Metadata?.PackagedTemplate : undefined;
      if (!file) continue;
      let params = { Bucket: bucket, Key: `${service.package.artifactDirectoryName}/${file}`, Body: fs.readFileSync(path.join(this.dir, file), 'utf8'), ContentType: 'application/json' };
      if (service.provider.deploymentBucketObject) params = withEncryption(params, service.provider.deploymentBucketObject);
      await this.uploadObject(provider, params);
      this.log?.verbose?.(`uploaded ${file}`);
    }
  }
}

module.exports = NestedStacks;
module.exports.splitStack = splitStack;
module.exports.SELECTORS = SELECTORS;
