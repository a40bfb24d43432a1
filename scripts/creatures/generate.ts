/**
 * Deterministic generator of the 150 invented creatures in `data/creatures/creatures.json`.
 *
 *   npx tsx scripts/creatures/generate.ts           # rewrite the committed file
 *   npx tsx scripts/creatures/generate.ts --check   # exit 1 when the committed file is stale
 *
 * It reads only the hand-written tables in `./tables.ts` and a fixed seed; the same tables always give
 * the same bytes (a unit test regenerates the file and compares). Never uses Math.random.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AttackRecord, CreatureFile, CreatureRecord, CreatureRef, Dimension, Rarity } from '#lib/graphql/creatures/model.js';
import {
  ATTACKS,
  BRANCH_SECOND_TYPES,
  CLASSIFICATIONS,
  CODAS,
  CREATURE_COUNT,
  FAMILY_COUNTS,
  HAND_FAMILIES,
  ONSETS,
  SEED,
  SUFFIXES,
  TYPES,
  VOWELS,
  defensiveProfile,
  type FamilyShape,
  type TypeName,
} from './tables.js';

export const OUTPUT_PATH = fileURLToPath(new URL('../../data/creatures/creatures.json', import.meta.url));

/** mulberry32: a small seeded PRNG with good enough spread for invented data. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Random {
  constructor(readonly next: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }
}

/** One member of a family before numbers are assigned. */
interface Member {
  name: string;
  types: TypeName[];
  /** 0 for the first stage. */
  stage: number;
  /** Indexes (within the family) of the members it evolves into, directly or later. */
  later: number[];
  /** Indexes of the members it evolved from, first stage first. */
  earlier: number[];
  requirement: { amount: number } | null;
}

interface Family {
  shape: FamilyShape;
  members: Member[];
}

const VOWEL = /[aeiouy]$/;
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const round2 = (n: number) => Math.round(n * 100) / 100;

function join(stem: string, suffix: string): string {
  // Avoid a vowel pile-up at the seam ("Brai" + "it").
  return VOWEL.test(stem) && /^[aeiouy]/.test(suffix) ? `${stem}r${suffix}` : stem + suffix;
}

class Names {
  readonly #used = new Set<string>();

  constructor(private readonly rng: Random) {}

  reserve(name: string): void {
    const key = name.toLowerCase();
    if (this.#used.has(key)) throw new Error(`duplicate hand-written name ${name}`);
    this.#used.add(key);
  }

  #stem(): string {
    let stem = this.rng.pick(ONSETS) + this.rng.pick(VOWELS) + this.rng.pick(CODAS);
    if (stem.length < 4) stem += this.rng.pick(ONSETS) + this.rng.pick(VOWELS);
    return capitalize(stem);
  }

  /** A fresh stem and one name per suffix list, all unused and 4–11 letters long. */
  family(suffixLists: ReadonlyArray<readonly string[]>): string[] {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const stem = this.#stem();
      const names = suffixLists.map((list) => join(stem, this.rng.pick(list)));
      const keys = names.map((n) => n.toLowerCase());
      const ok =
        new Set(keys).size === keys.length &&
        keys.every((k) => !this.#used.has(k) && k.length >= 4 && k.length <= 11 && /^[a-z]+$/.test(k));
      if (ok) {
        keys.forEach((k) => this.#used.add(k));
        return names;
      }
    }
    throw new Error('could not find unused names; widen the syllable tables');
  }
}

function chain(names: string[], types: TypeName[][], amounts: number[]): Member[] {
  return names.map((name, i) => ({
    name,
    types: types[i] ?? types[0] ?? [],
    stage: i,
    later: names.map((_, j) => j).filter((j) => j > i),
    earlier: names.map((_, j) => j).filter((j) => j < i),
    requirement: i < names.length - 1 ? { amount: amounts[i] ?? 50 } : null,
  }));
}

function branch(names: string[], baseTypes: TypeName[], secondTypes: readonly [TypeName, TypeName]): Member[] {
  const [base, left, right] = names;
  if (!base || !left || !right) throw new Error('a branching family needs three names');
  const primary = baseTypes[0] ?? 'Plain';
  return [
    { name: base, types: baseTypes, stage: 0, later: [1, 2], earlier: [], requirement: { amount: 50 } },
    { name: left, types: [primary, secondTypes[0]], stage: 1, later: [], earlier: [0], requirement: null },
    { name: right, types: [primary, secondTypes[1]], stage: 1, later: [], earlier: [0], requirement: null },
  ];
}

function planFamilies(rng: Random): Family[] {
  const names = new Names(rng);
  for (const hand of HAND_FAMILIES) hand.names.forEach((n) => names.reserve(n));

  // Primary types of generated families cycle through a shuffled deck so every type is used.
  let deck: TypeName[] = [];
  const nextPrimary = (): TypeName => {
    if (!deck.length) deck = rng.shuffle(TYPES);
    return deck.pop() as TypeName;
  };
  const typesFor = (primary: TypeName, secondaryChance: number): TypeName[] =>
    rng.next() < secondaryChance ? [primary, rng.pick(TYPES.filter((t) => t !== primary))] : [primary];

  const families: Family[] = HAND_FAMILIES.map((hand) => {
    const types = [...hand.types];
    const members =
      hand.shape === 'branch'
        ? branch([...hand.names], types, BRANCH_SECOND_TYPES)
        : chain([...hand.names], [types], hand.shape === 'three' ? [25, 100] : [50]);
    return { shape: hand.shape, members };
  });

  const remaining = { ...FAMILY_COUNTS };
  for (const hand of HAND_FAMILIES) remaining[hand.shape]--;
  const commonShapes = rng.shuffle(
    (['three', 'branch', 'two', 'single'] as const).flatMap((shape) => Array<FamilyShape>(remaining[shape]).fill(shape)),
  );
  const rareShapes = [...Array<FamilyShape>(remaining.legendary).fill('legendary'), ...Array<FamilyShape>(remaining.mythic).fill('mythic')];

  for (const shape of [...commonShapes, ...rareShapes]) {
    const primary = nextPrimary();
    switch (shape) {
      case 'three': {
        const types = typesFor(primary, 0.35);
        families.push({ shape, members: chain(names.family([SUFFIXES.first, SUFFIXES.middle, SUFFIXES.last]), [types], [25, 100]) });
        break;
      }
      case 'two': {
        const types = typesFor(primary, 0.35);
        families.push({ shape, members: chain(names.family([SUFFIXES.first, SUFFIXES.last]), [types], [50]) });
        break;
      }
      case 'branch': {
        const others = rng.shuffle(TYPES.filter((t) => t !== primary));
        const seconds: [TypeName, TypeName] = [others[0] as TypeName, others[1] as TypeName];
        families.push({ shape, members: branch(names.family([SUFFIXES.first, SUFFIXES.last, SUFFIXES.middle]), [primary], seconds) });
        break;
      }
      case 'single':
        families.push({ shape, members: chain(names.family([SUFFIXES.single]), [typesFor(primary, 0.35)], []) });
        break;
      case 'legendary':
      case 'mythic':
        families.push({ shape, members: chain(names.family([SUFFIXES.legendary]), [typesFor(primary, 0.6)], []) });
        break;
    }
  }
  const total = families.reduce((n, f) => n + f.members.length, 0);
  if (total !== CREATURE_COUNT) throw new Error(`family plan holds ${total} creatures, expected ${CREATURE_COUNT}`);
  return families;
}

function attacksFor(rng: Random, types: TypeName[], stage: number): { fast: AttackRecord[]; special: AttackRecord[] } {
  const [primary, secondary] = types as [TypeName, TypeName | undefined];
  const toRecord = (type: TypeName) => ([name, damage]: readonly [string, number]): AttackRecord => ({ name, type, damage });
  const pool = (kind: 'fast' | 'special', ofTypes: TypeName[]) =>
    [...new Set(ofTypes)].flatMap((t) => ATTACKS[t][kind].map(toRecord(t)));

  const fast1 = rng.pick(pool('fast', [primary]));
  const fast2 = rng.pick(pool('fast', secondary ? [secondary] : [primary, 'Plain']).filter((a) => a.name !== fast1.name));

  // Later stages draw their signature special attack from the stronger end of their type's list.
  const signatures = pool('special', [primary]).sort((a, b) => a.damage - b.damage);
  const special1 = rng.pick(signatures.slice(Math.min(stage, 2)));
  const rest = rng.shuffle(
    pool('special', secondary ? [primary, secondary] : [primary, 'Plain']).filter((a) => a.name !== special1.name),
  );
  return { fast: [fast1, fast2], special: [special1, ...rest.slice(0, 2)] };
}

function dimension(mid: number, unit: 'kg' | 'm'): Dimension {
  return { minimum: round2(mid * 0.875), maximum: round2(mid * 1.125), unit };
}

/** The 150 creature records, in number order. Pure: the same seed and tables give the same records. */
export function generateCreatures(seed = SEED): CreatureRecord[] {
  const rng = new Random(mulberry32(seed));
  const families = planFamilies(rng);
  const records: CreatureRecord[] = [];

  for (const family of families) {
    const first = records.length + 1;
    const numberOf = (i: number) => String(first + i).padStart(3, '0');
    const ref = (i: number): CreatureRef => ({ number: numberOf(i), name: family.members[i]?.name ?? '' });
    const rare = family.shape === 'legendary' || family.shape === 'mythic';
    const baseKg = rare ? 80 + rng.next() * 220 : Math.exp(Math.log(0.5) + rng.next() * (Math.log(60) - Math.log(0.5)));
    const baseM = rare ? 1.8 + rng.next() * 2.2 : 0.2 + rng.next() * 1.8;
    const baseName = family.members[0]?.name ?? '';

    family.members.forEach((member, i) => {
      const primary = member.types[0] as TypeName;
      const rarity: Rarity = family.shape === 'legendary' ? 'LEGENDARY' : family.shape === 'mythic' ? 'MYTHIC' : 'COMMON';
      const maxCP =
        family.shape === 'legendary'
          ? rng.int(3200, 3800)
          : family.shape === 'mythic'
            ? rng.int(3000, 3500)
            : family.shape === 'single'
              ? rng.int(900, 1600)
              : Math.round(300 + 900 * member.stage + rng.next() * 250);
      const maxHP = Math.round(maxCP * (0.85 + rng.next() * 0.3));
      const fleeRate =
        rarity === 'LEGENDARY' ? 0.02 : rarity === 'MYTHIC' ? 0.03 : family.shape === 'single' ? 0.08 : ([0.1, 0.07, 0.05][member.stage] ?? 0.05);
      const { resistant, weaknesses } = defensiveProfile(member.types);
      records.push({
        number: numberOf(i),
        name: member.name,
        classification: `${rng.pick(CLASSIFICATIONS[primary])} Creature`,
        types: [...member.types],
        resistant,
        weaknesses,
        weight: dimension(baseKg * 2.2 ** member.stage, 'kg'),
        height: dimension(baseM * 1.5 ** member.stage, 'm'),
        fleeRate,
        maxCP,
        maxHP,
        attacks: attacksFor(rng, member.types, rare ? 2 : member.stage),
        evolutions: member.later.map(ref),
        previousEvolutions: member.earlier.map(ref),
        evolutionRequirements: member.requirement ? { amount: member.requirement.amount, name: `${baseName} shards` } : null,
        rarity,
      });
    });
  }
  return records;
}

/** Pretty JSON where small objects and arrays stay on one line, so diffs stay readable. */
function format(value: unknown, indent = ''): string {
  const flat = JSON.stringify(value);
  if (flat === undefined) throw new Error('cannot format undefined');
  if (value === null || typeof value !== 'object' || flat.length + indent.length <= 100) return flat;
  const inner = indent + '  ';
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + format(v, inner)).join(',\n')}\n${indent}]`;
  const entries = Object.entries(value).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${format(v, inner)}`);
  return `{\n${entries.join(',\n')}\n${indent}}`;
}

/** The exact bytes of the committed file. */
export function renderCreatureFile(records: CreatureRecord[] = generateCreatures(), seed = SEED): string {
  const file: CreatureFile = {
    note: 'Generated by scripts/creatures/generate.ts from scripts/creatures/tables.ts. Do not edit by hand: change the tables and run `npx tsx scripts/creatures/generate.ts`.',
    seed,
    creatures: records,
  };
  return format(file) + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const fresh = renderCreatureFile();
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(OUTPUT_PATH, 'utf8');
    } catch {
      // missing file: stale
    }
    if (committed !== fresh) {
      console.error(`${OUTPUT_PATH} is stale: run npx tsx scripts/creatures/generate.ts and commit the result`);
      process.exit(1);
    }
    console.log(`${OUTPUT_PATH} is up to date`);
  } else {
    writeFileSync(OUTPUT_PATH, fresh);
    console.log(`wrote ${CREATURE_COUNT} creatures to ${OUTPUT_PATH}`);
  }
}
