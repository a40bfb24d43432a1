/**
 * The packaged stack as CloudFormation takes it: the root template `serverless package` writes and the
 * templates of the nested stacks it names. The CI checks and the capacity model read the stack through
 * this, so that moving resources into a nested stack changes no check's view of what is deployed.
 *
 * A nested stack is a root resource of type AWS::CloudFormation::Stack whose `Metadata.PackagedTemplate`
 * names its template's file beside the root one (the packaging step writes both).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const ROOT_TEMPLATE = 'cloudformation-template-update-stack.json';

export interface Resource {
  Type: string;
  Properties?: Record<string, any>;
  DependsOn?: string | string[];
  Metadata?: Record<string, any>;
  [key: string]: any;
}
export interface Template {
  Resources: Record<string, Resource>;
  Parameters?: Record<string, any>;
  Outputs?: Record<string, any>;
  Mappings?: Record<string, any>;
  Conditions?: Record<string, any>;
  [key: string]: any;
}

export interface StackTemplate {
  /** `root`, or the logical id of the nested stack's resource in the root. */
  name: string;
  file: string;
  template: Template;
  /** The template's size as uploaded (CloudFormation's limit is on these bytes). */
  bytes: number;
}

export interface PackagedStack {
  root: StackTemplate;
  nested: StackTemplate[];
}

async function readTemplate(dir: string, file: string, name: string): Promise<StackTemplate> {
  const text = await readFile(path.join(dir, file), 'utf8');
  return { name, file, template: JSON.parse(text) as Template, bytes: Buffer.byteLength(text) };
}

export async function readPackagedStack(dir = '.serverless'): Promise<PackagedStack> {
  const root = await readTemplate(dir, ROOT_TEMPLATE, 'root');
  const nested: StackTemplate[] = [];
  for (const [id, resource] of Object.entries(root.template.Resources)) {
    if (resource.Type !== 'AWS::CloudFormation::Stack') continue;
    const file: unknown = resource.Metadata?.PackagedTemplate;
    if (typeof file !== 'string' || path.basename(file) !== file) throw new Error(`nested stack ${id} names no packaged template (Metadata.PackagedTemplate)`);
    nested.push(await readTemplate(dir, file, id));
  }
  return { root, nested };
}

/** Every stack of the package, the root first. */
export const stacksOf = (stack: PackagedStack): StackTemplate[] => [stack.root, ...stack.nested];

type Expression = unknown;

/** A Fn::Sub variable for an expression that is a Ref or an Fn::GetAtt of one attribute, else undefined. */
function subVariable(e: Expression): string | undefined {
  const x = e as { Ref?: unknown; 'Fn::GetAtt'?: unknown };
  if (e && typeof e === 'object' && Object.keys(e).length === 1) {
    if (typeof x.Ref === 'string') return x.Ref;
    if (Array.isArray(x['Fn::GetAtt'])) return x['Fn::GetAtt'].join('.');
  }
  return undefined;
}

/**
 * `value` with each reference `lookup` knows replaced: `lookup(name)` is given a `Ref`'s name, an
 * Fn::GetAtt's `id.attribute` and each Fn::Sub variable, and returns the expression it stands for.
 */
function substitute(value: unknown, lookup: (name: string) => Expression | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => substitute(v, lookup));
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length === 1) {
    const [key, arg] = entries[0]!;
    if (key === 'Ref' && typeof arg === 'string') return lookup(arg) ?? value;
    if (key === 'Fn::GetAtt' && Array.isArray(arg)) return lookup(arg.join('.')) ?? value;
    if (key === 'Fn::Sub') {
      const [text, vars] = (typeof arg === 'string' ? [arg, undefined] : arg) as [string, Record<string, unknown> | undefined];
      const extra: Record<string, unknown> = {};
      const replaced = text.replace(/\$\{(?!!)([^}]+)\}/g, (whole, name: string) => {
        const e = vars && name in vars ? undefined : lookup(name);
        if (e === undefined) return whole;
        const variable = subVariable(e);
        if (variable) return `\${${variable}}`;
        extra[name] = e;
        return whole;
      });
      const allVars = { ...(substitute(vars, lookup) as Record<string, unknown> | undefined), ...extra };
      return { 'Fn::Sub': Object.keys(allVars).length ? [replaced, allVars] : replaced };
    }
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, substitute(v, lookup)]));
}

/**
 * One template holding every resource and condition of the package, each once, as if nothing were
 * nested: a nested stack's parameters are replaced by the root's expressions that fill them (a `Ref` to
 * a parameter becomes the root's `Ref` or `Fn::GetAtt`), and the root's reads of a nested stack's
 * outputs (`Fn::GetAtt: [Stack, Outputs.Name]`) by the output's value, so a function's role is its role
 * again. A DependsOn on a nested stack is left out (the stack is no resource of this view). The view of
 * checks that ask what is deployed, wherever it is. Logical ids are unique across the stacks (the
 * packaging step moves resources under their own ids); a clash is an error.
 */
export function mergedTemplate(stack: PackagedStack): Template {
  const merged: Template = { ...stack.root.template, Resources: {} };
  const nestedNames = new Set(stack.nested.map((n) => n.name));
  const given = (part: StackTemplate) => (part === stack.root ? {} : ((stack.root.template.Resources[part.name]?.Properties?.Parameters ?? {}) as Record<string, Expression>));
  const fromParameters = (part: StackTemplate) => {
    const values = given(part);
    return (name: string) => (Object.hasOwn(values, name) ? values[name] : undefined);
  };
  // `Stack.Outputs.Name`: the output's value as the root would say it.
  const fromOutputs = (name: string): Expression | undefined => {
    const match = /^([^.]+)\.Outputs\.(.+)$/.exec(name);
    const part = match && stack.nested.find((n) => n.name === match[1]);
    const output = part?.template.Outputs?.[match![2]!];
    return output ? substitute(output.Value, fromParameters(part)) : undefined;
  };
  for (const part of stacksOf(stack)) {
    const lookup = part === stack.root ? fromOutputs : fromParameters(part);
    for (const [id, resource] of Object.entries(part.template.Resources)) {
      if (resource.Type === 'AWS::CloudFormation::Stack') continue;
      if (merged.Resources[id]) throw new Error(`resource ${id} is in two stacks (${part.name} and another)`);
      const { DependsOn, ...body } = resource;
      const out = substitute(body, lookup) as Resource;
      const depends = [DependsOn ?? []].flat().filter((d) => !nestedNames.has(d));
      merged.Resources[id] = DependsOn === undefined ? out : { ...out, DependsOn: depends };
    }
    for (const section of ['Conditions', 'Mappings'] as const) {
      if (part.template[section]) merged[section] = { ...part.template[section], ...merged[section] };
    }
  }
  if (stack.root.template.Outputs) merged.Outputs = substitute(stack.root.template.Outputs, fromOutputs) as Template['Outputs'];
  return merged;
}
