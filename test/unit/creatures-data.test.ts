import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { CreatureFile, CreatureRecord } from '#lib/graphql/creatures/model.js';
import { OUTPUT_PATH, generateCreatures, renderCreatureFile } from '../../scripts/creatures/generate.js';
import { ATTACKS, CHART, HAND_FAMILIES, SEED, TYPES, defensiveProfile, effectiveness, type TypeName } from '../../scripts/creatures/tables.js';

const committedText = readFileSync(OUTPUT_PATH, 'utf8');
const committed = JSON.parse(committedText) as CreatureFile;
const creatures = committed.creatures;
const byNumber = new Map(creatures.map((c) => [c.number, c]));

describe('the committed creature data', () => {
  it('is exactly what the generator produces from the tables (regenerate with npx tsx scripts/creatures/generate.ts)', () => {
    // Compare the bytes, not only the parsed value: the file must be the generator's output as committed.
    expect(renderCreatureFile(generateCreatures(SEED), SEED)).toBe(committedText);
  });

  it('is deterministic, and the seed matters', () => {
    expect(generateCreatures(SEED)).toEqual(generateCreatures(SEED));
    expect(generateCreatures(SEED + 1).map((c) => c.name)).not.toEqual(creatures.map((c) => c.name));
  });

  it('holds 150 records numbered 001..150 in order, with no extra or missing keys', () => {
    const ref = z.strictObject({ number: z.string(), name: z.string() });
    const attack = z.strictObject({ name: z.string().min(1), type: z.enum(TYPES), damage: z.number().int().positive() });
    const dimension = (unit: string) =>
      z.strictObject({ minimum: z.number().positive(), maximum: z.number().positive(), unit: z.literal(unit) }).refine((d) => d.minimum < d.maximum, 'minimum < maximum');
    const record = z.strictObject({
      number: z.string().regex(/^\d{3}$/),
      name: z.string().regex(/^[A-Z][a-z]{3,10}$/),
      classification: z.string().regex(/^[A-Z][a-z]+ Creature$/),
      types: z.array(z.enum(TYPES)).min(1).max(2),
      resistant: z.array(z.enum(TYPES)),
      weaknesses: z.array(z.enum(TYPES)),
      weight: dimension('kg'),
      height: dimension('m'),
      fleeRate: z.number().gt(0).lt(1),
      maxCP: z.number().int().positive(),
      maxHP: z.number().int().positive(),
      attacks: z.strictObject({ fast: z.array(attack).length(2), special: z.array(attack).length(3) }),
      evolutions: z.array(ref),
      previousEvolutions: z.array(ref),
      evolutionRequirements: z.strictObject({ amount: z.number().int().positive(), name: z.string().min(1) }).nullable(),
      rarity: z.enum(['COMMON', 'LEGENDARY', 'MYTHIC']),
    });
    z.strictObject({ note: z.string(), seed: z.number(), creatures: z.array(record).length(150) }).parse(committed);
    expect(creatures.map((c) => c.number)).toEqual(Array.from({ length: 150 }, (_, i) => String(i + 1).padStart(3, '0')));
  });

  it('has unique names, case-insensitively', () => {
    const names = creatures.map((c) => c.name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
  });

  it('keeps the hand-written families first, with their names and types', () => {
    const handNames = HAND_FAMILIES.flatMap((f) => f.names);
    expect(creatures.slice(0, handNames.length).map((c) => c.name)).toEqual(handNames);
    expect(byNumber.get('001')).toMatchObject({ name: 'Cindlet', types: ['Ember'] });
  });

  it('links evolutions to existing creatures, later numbers in chain order, both ways', () => {
    for (const c of creatures) {
      for (const ref of [...c.evolutions, ...c.previousEvolutions]) {
        expect(byNumber.get(ref.number)?.name, `${c.number} -> ${ref.number}`).toBe(ref.name);
      }
      const later = c.evolutions.map((r) => Number(r.number));
      expect(later.every((n) => n > Number(c.number))).toBe(true);
      expect([...later].sort((a, b) => a - b)).toEqual(later);
      const earlier = c.previousEvolutions.map((r) => Number(r.number));
      expect(earlier.every((n) => n < Number(c.number))).toBe(true);
      expect([...earlier].sort((a, b) => a - b)).toEqual(earlier);
      // Reciprocity: whatever it evolves into lists it as an earlier stage, and the reverse.
      for (const ref of c.evolutions) expect(byNumber.get(ref.number)?.previousEvolutions.map((r) => r.number)).toContain(c.number);
      for (const ref of c.previousEvolutions) expect(byNumber.get(ref.number)?.evolutions.map((r) => r.number)).toContain(c.number);
      // A creature that can evolve says what it costs; a final form does not.
      expect(c.evolutionRequirements === null).toBe(c.evolutions.length === 0);
    }
  });

  it('has at least one branching family and several three-stage chains', () => {
    const branching = creatures.filter((c) => c.evolutions.length === 2 && c.evolutions.every((r) => byNumber.get(r.number)?.evolutions.length === 0));
    expect(branching.length).toBeGreaterThanOrEqual(1);
    expect(creatures.filter((c) => c.evolutions.length === 2 && !branching.includes(c)).length).toBeGreaterThanOrEqual(20);
  });

  it('computes resistances and weaknesses from the type chart', () => {
    for (const c of creatures) {
      const types = c.types as TypeName[];
      for (const attacking of TYPES) {
        const multiplier = types.reduce((m, d) => m * effectiveness(attacking, d), 1);
        expect(c.resistant.includes(attacking), `${c.name} vs ${attacking}`).toBe(multiplier < 1);
        expect(c.weaknesses.includes(attacking), `${c.name} vs ${attacking}`).toBe(multiplier > 1);
      }
      expect({ resistant: c.resistant, weaknesses: c.weaknesses }).toEqual(defensiveProfile(types));
    }
  });

  it('gives every creature distinct attacks from the attack table, one of its primary type, each with damage', () => {
    const table = new Map(
      TYPES.flatMap((t) => [...ATTACKS[t].fast, ...ATTACKS[t].special].map(([name, damage]) => [name, { type: t, damage }] as const)),
    );
    for (const c of creatures) {
      const all = [...c.attacks.fast, ...c.attacks.special];
      expect(new Set(all.map((a) => a.name)).size).toBe(all.length);
      for (const a of all) expect(table.get(a.name), `${c.name}: ${a.name}`).toEqual({ type: a.type, damage: a.damage });
      expect(c.attacks.fast.some((a) => a.type === c.types[0])).toBe(true);
      expect(c.attacks.special.some((a) => a.type === c.types[0])).toBe(true);
    }
  });

  it('has 5 legendary and 3 mythic creatures, none of which evolves', () => {
    const rare = (r: CreatureRecord['rarity']) => creatures.filter((c) => c.rarity === r);
    expect(rare('LEGENDARY')).toHaveLength(5);
    expect(rare('MYTHIC')).toHaveLength(3);
    for (const c of [...rare('LEGENDARY'), ...rare('MYTHIC')]) expect([c.evolutions, c.previousEvolutions]).toEqual([[], []]);
  });

  it('uses no franchise creature names', () => {
    // A small hand-kept guard list; the names are invented from syllables, this catches accidents.
    const denied = ['pikachu', 'bulbasaur', 'charmander', 'squirtle', 'mewtwo', 'eevee', 'agumon', 'gabumon', 'slime', 'chocobo', 'moogle', 'yokai'];
    for (const c of creatures) expect(denied, c.name).not.toContain(c.name.toLowerCase());
  });
});

describe('the hand-written type chart', () => {
  it('never makes a pairing both strong and weak, and only names known types', () => {
    for (const [attacking, row] of Object.entries(CHART)) {
      expect(row.strong.filter((t) => row.weak.includes(t)), attacking).toEqual([]);
      for (const t of [...row.strong, ...row.weak]) expect(TYPES).toContain(t);
    }
  });

  it('is used by at least one creature for every type', () => {
    for (const t of TYPES) expect(creatures.some((c) => c.types.includes(t)), t).toBe(true);
  });
});
