/**
 * The depth limit for introspection (`__schema`, `__type`), which graphql-armor's depth rule skips:
 * the introspection schema is recursive (a type's fields have types, which have fields…), so a deep
 * selection there grows the answer as any other would.
 *
 * Depth is counted as graphql-armor counts it (each field one level, leaves included, from the
 * operation's root), with fragments flattened (they nest nothing in the answer), except for one thing:
 * a run of nested `ofType` counts as one level. Every standard introspection query asks for a type's
 * wrappers that way (graphql-js 16's `TypeRef` nests 9 `ofType`, older clients' 7), and such a run
 * cannot multiply anything: `ofType` is one object, null past the last wrapper. A run longer than
 * `maxWrapperRun` is refused, as is a depth beyond `maxDepth`. Measured so, GraphiQL's full query is 7
 * deep. graphql-js's own MaxIntrospectionDepthRule (in the specified rules) adds a bound on nested
 * lists of fields, interfaces, possible types and input fields.
 */
import { Kind, type ASTVisitor, type SelectionSetNode, type ValidationContext } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

export interface IntrospectionDepthOptions {
  maxDepth: number;
  /** Longest run of nested `ofType` (graphql-js 16's introspection query asks 9). */
  maxWrapperRun: number;
}

/** Fields visited at most per operation: repeated fragment spreads could otherwise make the walk exponential. */
const MAX_VISITS = 20_000;

interface Walk {
  depth: number;
  run: number;
  visits: number;
}

function measure(
  context: Pick<ValidationContext, 'getFragment'>,
  set: SelectionSetNode,
  at: { depth: number; run: number; inside: boolean },
  fragments: ReadonlySet<string>,
  found: Walk,
): void {
  for (const selection of set.selections) {
    if (++found.visits > MAX_VISITS) return;
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      const inside = at.inside || name === '__schema' || name === '__type';
      const wrapper = at.inside && name === 'ofType';
      const run = wrapper ? at.run + 1 : 0;
      // The second and later ofType of a run stay at the first one's level.
      const depth = wrapper && at.run > 0 ? at.depth : at.depth + 1;
      if (inside) {
        found.depth = Math.max(found.depth, depth);
        found.run = Math.max(found.run, run);
      }
      if (selection.selectionSet) measure(context, selection.selectionSet, { depth, run, inside }, fragments, found);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      measure(context, selection.selectionSet, at, fragments, found);
    } else {
      const name = selection.name.value;
      const fragment = fragments.has(name) ? undefined : context.getFragment(name);
      // A cycle is another rule's error.
      if (fragment) measure(context, fragment.selectionSet, at, new Set([...fragments, name]), found);
    }
  }
}

export function introspectionDepthRule(opts: IntrospectionDepthOptions) {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      const found: Walk = { depth: 0, run: 0, visits: 0 };
      measure(context, node.selectionSet, { depth: 0, run: 0, inside: false }, new Set(), found);
      const problems = [
        found.visits > MAX_VISITS ? `Introspection too complex: more than ${MAX_VISITS} fields to check.` : '',
        found.depth > opts.maxDepth ? `Introspection depth limit of ${opts.maxDepth} exceeded, found ${found.depth} (a run of ofType counts as one level).` : '',
        found.run > opts.maxWrapperRun ? `Introspection depth limit exceeded: ${found.run} nested ofType, at most ${opts.maxWrapperRun}.` : '',
      ];
      for (const message of problems.filter(Boolean)) {
        context.reportError(createGraphQLError(message, { nodes: [node], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }));
      }
    },
  });
}

export function useIntrospectionDepthLimit(opts: IntrospectionDepthOptions): Plugin {
  const rule = introspectionDepthRule(opts);
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(rule);
    },
  };
}
