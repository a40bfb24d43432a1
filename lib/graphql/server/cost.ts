/**
 * A cost limit that knows how long lists are. graphql-armor's cost rule counts each selected field
 * once (so `creatures { … }`, 150 records, costs as much as one record) and multiplies only by a
 * literal `first`. Here every field costs 1, an object field 1 plus its selection, and a field that
 * returns a list of objects multiplies that by the most items it can return: a number per field (from
 * the data) or a function of its arguments (`first`, which the resolver clamps; a variable counts as
 * the maximum). Aliases and fragments count for each use. Introspection counts too (it is recursive):
 * `__schema`'s types and directives by their number in the schema, the lists of a type, field or
 * directive by their average length over the schema, rounded up (under `types`, the exact total).
 *
 * The estimate is checked while validating, so an operation over the limit never executes.
 *
 * A batch (a JSON array of operations) shares one budget: its operations are counted in order as they
 * come to be run, and one that would take the total over the limit is answered with an error instead
 * of data, so that a batch cannot multiply the largest answer by the number of operations it holds.
 * Counted before the response cache, so answers it holds count too.
 */
import {
  Kind,
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type ASTVisitor,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
  type SelectionSetNode,
  type ValidationContext,
  type ValueNode,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

// Type checks by tag rather than graphql's isObjectType & co: `graphql` may be loaded twice (its ESM
// and CJS builds, as under vitest), and those helpers reject types made by the other copy.
const tag = (type: unknown) => Object.prototype.toString.call(type);
const isObjectType = (type: unknown): type is GraphQLObjectType => tag(type) === '[object GraphQLObjectType]';
const isNonNull = (type: unknown): type is { ofType: GraphQLType } => tag(type) === '[object GraphQLNonNull]';
const isList = (type: unknown): type is { ofType: GraphQLType } => tag(type) === '[object GraphQLList]';
const nullable = (type: GraphQLType): GraphQLType => (isNonNull(type) ? type.ofType : type);
function named(type: GraphQLType): GraphQLType {
  let t = type;
  while (isNonNull(t) || isList(t)) t = t.ofType;
  return t;
}

/** Most items a list field returns: a constant, or computed from its literal arguments (undefined = a variable). */
export type ListSize = number | ((args: Record<string, number | string | boolean | null | undefined>) => number);

export interface CostOptions {
  maxCost: number;
  /** Keyed `Type.field`. */
  listSizes: Record<string, ListSize>;
  /** For object lists not in `listSizes`. */
  defaultListSize?: number;
}

function literal(value: ValueNode): number | string | boolean | null | undefined {
  switch (value.kind) {
    case Kind.INT:
    case Kind.FLOAT:
      return Number(value.value);
    case Kind.STRING:
    case Kind.ENUM:
      return value.value;
    case Kind.BOOLEAN:
      return value.value;
    case Kind.NULL:
      return null;
    default:
      return undefined; // variables, lists, objects: unknown while validating
  }
}

/** What introspection lists of a type: its fields (objects, interfaces, input objects), interfaces, enum values. */
type Listing = { getFields?: () => Record<string, { args?: readonly unknown[] }>; getInterfaces?: () => readonly unknown[]; getValues?: () => readonly unknown[] };
const isInput = (type: unknown) => tag(type) === '[object GraphQLInputObjectType]';
const isAbstract = (type: unknown) => tag(type) === '[object GraphQLUnionType]' || tag(type) === '[object GraphQLInterfaceType]';

/** Introspection's list fields and their sizes for this schema, computed once per schema. */
const introspectionSizes = new WeakMap<GraphQLSchema, Record<string, number>>();
function introspectionListSizes(schema: GraphQLSchema): Record<string, number> {
  const known = introspectionSizes.get(schema);
  if (known) return known;
  const types = Object.values(schema.getTypeMap()) as Listing[];
  const directives = schema.getDirectives();
  const average = (counts: number[]) => Math.max(1, Math.ceil(counts.reduce((a, b) => a + b, 0) / Math.max(counts.length, 1)));
  const fieldsOf = (t: Listing) => (isInput(t) ? [] : Object.values(t.getFields?.() ?? {}));
  const sizes = {
    '__Schema.types': types.length,
    '__Schema.directives': directives.length,
    '__Type.fields': average(types.map((t) => fieldsOf(t).length)),
    '__Type.inputFields': average(types.map((t) => (isInput(t) ? Object.keys(t.getFields!()).length : 0))),
    '__Type.interfaces': average(types.map((t) => t.getInterfaces?.().length ?? 0)),
    '__Type.possibleTypes': average(types.map((t) => (isAbstract(t) ? schema.getPossibleTypes(t as never).length : 0))),
    '__Type.enumValues': average(types.map((t) => t.getValues?.().length ?? 0)),
    '__Field.args': average(types.flatMap((t) => fieldsOf(t).map((f) => f.args?.length ?? 0))),
    '__Directive.args': average(directives.map((d) => d.args.length)),
  };
  introspectionSizes.set(schema, sizes);
  return sizes;
}

/** The type a meta field selects, or undefined for `__typename` (a leaf) and ordinary fields. */
function metaFieldType(schema: GraphQLSchema, name: string): GraphQLType | undefined {
  if (name === '__schema') return schema.getType('__Schema') ?? undefined;
  if (name === '__type') return schema.getType('__Type') ?? undefined;
  return undefined;
}

export function operationCost(
  schema: GraphQLSchema,
  context: Pick<ValidationContext, 'getFragment'>,
  selectionSet: SelectionSetNode,
  parent: GraphQLObjectType,
  opts: CostOptions,
  fragmentsInUse: ReadonlySet<string> = new Set(),
): number {
  let cost = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      const meta = metaFieldType(schema, name);
      const field = meta ? { type: meta } : parent.getFields()[name];
      if (!field) {
        if (name === '__typename') cost += 1;
        continue; // unknown fields are another rule's error
      }
      const type = named(field.type);
      if (!isObjectType(type) || !selection.selectionSet) {
        cost += 1;
        continue;
      }
      const inner = 1 + operationCost(schema, context, selection.selectionSet, type, opts, fragmentsInUse);
      let size = 1;
      if (isList(nullable(field.type))) {
        const key = `${parent.name}.${name}`;
        const rule = opts.listSizes[key] ?? introspectionListSizes(schema)[key] ?? opts.defaultListSize ?? 10;
        const args = Object.fromEntries((selection.arguments ?? []).map((a) => [a.name.value, literal(a.value)]));
        size = typeof rule === 'number' ? rule : rule(args);
      }
      cost += inner * Math.max(size, 0);
    } else {
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? context.getFragment(selection.name.value) : selection;
      if (!fragment) continue;
      // A fragment cycle is invalid anyway (another rule reports it); do not recurse forever.
      if (selection.kind === Kind.FRAGMENT_SPREAD && fragmentsInUse.has(selection.name.value)) continue;
      const condition = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : parent;
      const on = isObjectType(condition) ? condition : parent;
      const inUse = selection.kind === Kind.FRAGMENT_SPREAD ? new Set([...fragmentsInUse, selection.name.value]) : fragmentsInUse;
      cost += operationCost(schema, context, fragment.selectionSet, on, opts, inUse);
    }
  }
  return cost;
}

function rootType(schema: GraphQLSchema, node: OperationDefinitionNode): GraphQLObjectType | null | undefined {
  return node.operation === 'query' ? schema.getQueryType() : node.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
}

export function costLimitRule(opts: CostOptions) {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      const schema = context.getSchema();
      const root = rootType(schema, node);
      if (!root) return;
      const cost = operationCost(schema, context, node.selectionSet, root, opts);
      if (cost > opts.maxCost) {
        context.reportError(
          createGraphQLError(
            `Query cost ${cost} exceeds the limit of ${opts.maxCost}: ask for fewer items (first), fewer nested lists or fewer aliases.`,
            { nodes: [node], extensions: { code: 'GRAPHQL_VALIDATION_FAILED', cost, maxCost: opts.maxCost } },
          ),
        );
      }
    },
  });
}

/**
 * The estimate for the operation a batch element runs, or undefined when it cannot be known here (not
 * parseable, no such operation): then the element fails in yoga's own parsing or validation.
 */
function paramsCost(schema: GraphQLSchema, query: unknown, operationName: unknown, opts: CostOptions & { maxTokens: number }): number | undefined {
  if (typeof query !== 'string') return undefined;
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: opts.maxTokens });
  } catch {
    return undefined;
  }
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = typeof operationName === 'string' && operationName ? operations.find((o) => o.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  const root = operation && rootType(schema, operation);
  if (!operation || !root) return undefined;
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  return operationCost(schema, { getFragment: (name) => fragments.get(name) }, operation.selectionSet, root, opts);
}

export function useCostLimit(opts: CostOptions & { maxTokens: number }): Plugin {
  const rule = costLimitRule(opts);
  /** What each batch request has spent so far; single operations are left to the validation rule. */
  const batches = new WeakMap<Request, { spent: number }>();
  let schema: GraphQLSchema | undefined;
  return {
    onSchemaChange({ schema: changed }) {
      schema = changed;
    },
    onValidate({ addValidationRule }) {
      addValidationRule(rule);
    },
    onRequestParse({ request }) {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (Array.isArray(requestParserResult)) batches.set(request, { spent: 0 });
        },
      };
    },
    onParams({ params, request }) {
      const batch = batches.get(request);
      if (!batch || !schema) return;
      const cost = paramsCost(schema, params.query, params.operationName, opts);
      if (cost === undefined || cost > opts.maxCost) return; // refused by the validation rule
      if (batch.spent + cost > opts.maxCost) {
        throw createGraphQLError(
          `Batch cost ${batch.spent + cost} exceeds the limit of ${opts.maxCost} for one request: send this operation in a request of its own, or ask for fewer items.`,
          { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', cost, spent: batch.spent, maxCost: opts.maxCost } },
        );
      }
      batch.spent += cost;
    },
  };
}
