import { buildSchema, parse, type OperationDefinitionNode, type FragmentDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationCost, type CostOptions } from '#lib/graphql/server/cost.js';

const schema = buildSchema(`
  type Query { items(first: Int): [Item!]! item: Item }
  type Item { name: String tags: [String!]! children: [Item!]! }
`);
const opts: CostOptions = {
  maxCost: 1000,
  listSizes: { 'Query.items': ({ first }) => (typeof first === 'number' ? Math.min(first, 50) : 50), 'Item.children': 3 },
};

function cost(source: string): number {
  const doc = parse(source);
  const fragments = new Map(
    doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === 'FragmentDefinition').map((f) => [f.name.value, f]),
  );
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
  return operationCost(schema, { getFragment: (name: string) => fragments.get(name) } as never, op.selectionSet, schema.getQueryType()!, opts);
}

describe('the list-aware cost estimate', () => {
  it('multiplies a list of objects by its most items, and scalar lists count once', () => {
    expect(cost('{ item { name tags } }')).toBe(3);
    expect(cost('{ items { name tags } }')).toBe(50 * 3);
    expect(cost('{ items { children { name } } }')).toBe(50 * (1 + 3 * 2));
  });

  it('uses the literal first, clamped, and the maximum for a variable', () => {
    expect(cost('{ items(first: 2) { name } }')).toBe(2 * 2);
    expect(cost('{ items(first: 99999) { name } }')).toBe(50 * 2);
    expect(cost('query($n: Int) { items(first: $n) { name } }')).toBe(50 * 2);
  });

  it('counts every alias and every fragment use, introspection by its schema\'s list sizes, and survives fragment cycles', () => {
    expect(cost('{ a: item { name } b: item { name } }')).toBe(4);
    expect(cost('{ item { ...F ...F } } fragment F on Item { name }')).toBe(3);
    expect(cost('{ item { ... on Item { name } } }')).toBe(2);
    // __schema.types lists every named type of the schema (the user's and the introspection ones), each
    // an object of one field: 1 for __schema, (1 + 1) a type, 2 for item.
    const types = Object.keys(schema.getTypeMap()).length;
    expect(cost('{ __schema { types { name } } item { name } }')).toBe(1 + types * (1 + 1) + 2);
    expect(cost('{ item { ...A } } fragment A on Item { children { ...A } }')).toBe(1 + 3 * 1);
  });
});
