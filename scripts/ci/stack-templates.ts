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

/** `value` with each `{ Ref: p }` whose `p` is in `given` replaced by what `given` says. */
function substitute(value: unknown, given: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((v) => substitute(v, given));
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]![0] === 'Ref' && typeof entries[0]![1] === 'string' && entries[0]![1] in given) return given[entries[0]![1]];
  return Object.fromEntries(entries.map(([k, v]) => [k, substitute(v, given)]));
}

/**
 * One template holding every resource and condition of the package, each once, as if nothing were
 * nested: a nested stack's parameters are replaced by the root's expressions that fill them (a `Ref` to
 * a parameter becomes the root's `Ref` or `Fn::GetAtt`). The view of checks that ask what is deployed,
 * wherever it is. Logical ids are unique across the stacks (the packaging step moves resources under
 * their own ids); a clash is an error.
 */
export function mergedTemplate(stack: PackagedStack): Template {
  const merged: Template = { ...stack.root.template, Resources: {} };
  for (const part of stacksOf(stack)) {
    const given = part === stack.root ? {} : ((stack.root.template.Resources[part.name]?.Properties?.Parameters ?? {}) as Record<string, unknown>);
    for (const [id, resource] of Object.entries(part.template.Resources)) {
      if (resource.Type === 'AWS::CloudFormation::Stack') continue;
      if (merged.Resources[id]) throw new Error(`resource ${id} is in two stacks (${part.name} and another)`);
      merged.Resources[id] = substitute(resource, given) as Resource;
    }
    for (const section of ['Conditions', 'Mappings'] as const) {
      if (part.template[section]) merged[section] = { ...part.template[section], ...merged[section] };
    }
  }
  return merged;
}
