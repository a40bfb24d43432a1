/**
 * The shape of one record in `data/creatures/creatures.json`, the committed output of
 * `scripts/creatures/generate.ts`. Measurements are numbers with a unit (never unit-bearing strings);
 * evolution links are by number, with the name alongside for readers of the file.
 */

export type Rarity = 'COMMON' | 'LEGENDARY' | 'MYTHIC';

export interface Dimension {
  minimum: number;
  maximum: number;
  unit: 'kg' | 'm';
}

export interface AttackRecord {
  name: string;
  type: string;
  damage: number;
}

export interface CreatureRef {
  number: string;
  name: string;
}

export interface EvolutionRequirement {
  amount: number;
  name: string;
}

export interface CreatureRecord {
  /** Zero-padded, "001".."150". */
  number: string;
  name: string;
  classification: string;
  /** One or two type names; the first is the primary type. */
  types: string[];
  /** Attacking types that deal less than normal damage to it, from the type chart. */
  resistant: string[];
  /** Attacking types that deal more than normal damage to it, from the type chart. */
  weaknesses: string[];
  weight: Dimension;
  height: Dimension;
  fleeRate: number;
  maxCP: number;
  maxHP: number;
  attacks: { fast: AttackRecord[]; special: AttackRecord[] };
  /** All later stages of its evolution chain, in chain order. */
  evolutions: CreatureRef[];
  /** All earlier stages of its evolution chain, in chain order (first stage first). */
  previousEvolutions: CreatureRef[];
  /** What the next evolution costs; null when it cannot evolve further. */
  evolutionRequirements: EvolutionRequirement | null;
  rarity: Rarity;
}

export interface CreatureFile {
  note: string;
  seed: number;
  creatures: CreatureRecord[];
}
