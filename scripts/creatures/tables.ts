/**
 * Hand-written tables the creature generator draws from: type names, the type chart, the attack pool,
 * name syllables, classification words and the hand-authored families. Everything here is invented for
 * this project; nothing is taken from any game, franchise or other dataset.
 *
 * Edit these tables, then run `npx tsx scripts/creatures/generate.ts` and commit both the tables and
 * `data/creatures/creatures.json` (a unit test fails when the two disagree).
 */

export const TYPES = [
  'Ember',
  'Tide',
  'Bloom',
  'Volt',
  'Stone',
  'Frost',
  'Gale',
  'Venom',
  'Mind',
  'Iron',
  'Shade',
  'Glow',
  'Sand',
  'Spore',
  'Echo',
  'Plain',
] as const;

export type TypeName = (typeof TYPES)[number];

/**
 * The type chart, by attacking type: `strong` defenders take double damage, `weak` defenders take half.
 * Every other pairing is neutral. Our own design: heat beats growth and cold, water beats heat and
 * earth, sound shatters stone and crystal, light dispels shade, and so on.
 */
export const CHART: Record<TypeName, { strong: TypeName[]; weak: TypeName[] }> = {
  Ember: { strong: ['Bloom', 'Frost', 'Spore', 'Iron'], weak: ['Tide', 'Stone', 'Sand', 'Ember'] },
  Tide: { strong: ['Ember', 'Sand', 'Stone'], weak: ['Tide', 'Bloom', 'Frost'] },
  Bloom: { strong: ['Tide', 'Stone', 'Sand'], weak: ['Ember', 'Venom', 'Gale', 'Bloom'] },
  Volt: { strong: ['Tide', 'Gale', 'Iron'], weak: ['Stone', 'Sand', 'Volt', 'Bloom'] },
  Stone: { strong: ['Ember', 'Gale', 'Frost', 'Volt'], weak: ['Iron', 'Tide'] },
  Frost: { strong: ['Bloom', 'Gale', 'Sand'], weak: ['Ember', 'Iron', 'Frost'] },
  Gale: { strong: ['Bloom', 'Spore', 'Sand'], weak: ['Stone', 'Iron', 'Volt'] },
  Venom: { strong: ['Bloom', 'Spore', 'Plain'], weak: ['Iron', 'Stone', 'Venom', 'Shade'] },
  Mind: { strong: ['Echo', 'Plain', 'Venom'], weak: ['Mind', 'Shade', 'Iron'] },
  Iron: { strong: ['Stone', 'Frost', 'Glow'], weak: ['Ember', 'Tide', 'Iron', 'Volt'] },
  Shade: { strong: ['Mind', 'Echo'], weak: ['Glow', 'Shade', 'Plain'] },
  Glow: { strong: ['Shade', 'Spore', 'Venom'], weak: ['Glow', 'Iron', 'Mind'] },
  Sand: { strong: ['Volt', 'Ember', 'Iron'], weak: ['Tide', 'Bloom', 'Gale'] },
  Spore: { strong: ['Bloom', 'Mind', 'Stone'], weak: ['Ember', 'Gale', 'Venom', 'Iron'] },
  Echo: { strong: ['Stone', 'Glow', 'Frost'], weak: ['Echo', 'Plain', 'Shade'] },
  Plain: { strong: [], weak: ['Stone', 'Iron'] },
};

/** Damage multiplier of one attacking type against one defending type: 2, 1 or 0.5. */
export function effectiveness(attacking: TypeName, defending: TypeName): number {
  const row = CHART[attacking];
  if (row.strong.includes(defending)) return 2;
  if (row.weak.includes(defending)) return 0.5;
  return 1;
}

/**
 * Types a creature of `defending` types resists (combined multiplier below 1) and is weak to
 * (above 1), in chart order.
 */
export function defensiveProfile(defending: readonly TypeName[]): { resistant: TypeName[]; weaknesses: TypeName[] } {
  const resistant: TypeName[] = [];
  const weaknesses: TypeName[] = [];
  for (const attacking of TYPES) {
    const multiplier = defending.reduce((m, d) => m * effectiveness(attacking, d), 1);
    if (multiplier < 1) resistant.push(attacking);
    if (multiplier > 1) weaknesses.push(attacking);
  }
  return { resistant, weaknesses };
}

type AttackRow = readonly [name: string, damage: number];

/** The attack pool: per type, 3 fast attacks (damage 5–20) and 5 special attacks (damage 25–120). */
export const ATTACKS: Record<TypeName, { fast: readonly AttackRow[]; special: readonly AttackRow[] }> = {
  Ember: {
    fast: [['Cinder Flick', 8], ['Kindle Snap', 12], ['Ash Puff', 6]],
    special: [['Ashfall', 30], ['Ember Lance', 40], ['Kiln Burst', 55], ['Char Wave', 70], ['Furnace Roar', 95]],
  },
  Tide: {
    fast: [['Ripple Jab', 7], ['Brine Spit', 11], ['Spray Tap', 5]],
    special: [['Foam Spiral', 35], ['Riptide Coil', 50], ['Undertow', 60], ['Harbor Crush', 90], ['Deluge', 110]],
  },
  Bloom: {
    fast: [['Petal Nip', 6], ['Thorn Flick', 10], ['Sap Lash', 13]],
    special: [['Bramble Wall', 35], ['Root Snare', 45], ['Pollen Storm', 65], ['Verdant Surge', 85], ['Blossom Beam', 100]],
  },
  Volt: {
    fast: [['Static Tap', 9], ['Arc Nip', 14], ['Buzz', 5]],
    special: [['Charge Field', 35], ['Coil Shock', 50], ['Filament Burst', 60], ['Storm Relay', 80], ['Grid Collapse', 105]],
  },
  Stone: {
    fast: [['Pebble Toss', 10], ['Grit Slam', 15], ['Shale Chip', 7]],
    special: [['Slate Shield', 30], ['Fault Line', 60], ['Boulder Drop', 75], ['Quarry Crash', 95], ['Monolith', 115]],
  },
  Frost: {
    fast: [['Rime Bite', 9], ['Hail Tick', 6], ['Chill Nip', 12]],
    special: [['Sleet Veil', 35], ['Icicle Volley', 45], ['Frostbite Fang', 55], ['Glacier Ram', 85], ['Whiteout', 100]],
  },
  Gale: {
    fast: [['Breeze Clip', 7], ['Wing Flick', 11], ['Updraft', 5]],
    special: [['Crosswind', 30], ['Wind Shear', 40], ['Squall Line', 50], ['Cyclone Dive', 70], ['Tempest Howl', 95]],
  },
  Venom: {
    fast: [['Barb Prick', 8], ['Toxin Drip', 6], ['Fume Spit', 12]],
    special: [['Nettle Burst', 30], ['Sting Volley', 40], ['Blight Cloud', 55], ['Acid Tide', 75], ['Miasma', 90]],
  },
  Mind: {
    fast: [['Thought Jab', 10], ['Glimmer', 6], ['Focus Pulse', 13]],
    special: [['Calm Mirror', 25], ['Riddle Wave', 45], ['Dream Lance', 65], ['Mind Spiral', 80], ['Psyche Storm', 110]],
  },
  Iron: {
    fast: [['Rivet Shot', 11], ['Anvil Tap', 14], ['Chain Flick', 8]],
    special: [['Plate Bash', 35], ['Gear Grind', 50], ['Alloy Rush', 65], ['Forge Hammer', 80], ['Steel Cascade', 100]],
  },
  Shade: {
    fast: [['Gloom Nip', 9], ['Umbra Tap', 7], ['Dusk Claw', 13]],
    special: [['Murk Spiral', 30], ['Night Veil', 40], ['Eclipse Fang', 60], ['Umbral Crash', 85], ['Void Howl', 105]],
  },
  Glow: {
    fast: [['Flash Nip', 8], ['Beam Flick', 11], ['Twinkle', 5]],
    special: [['Halo Ring', 40], ['Radiant Lance', 55], ['Prism Ray', 70], ['Dawn Burst', 90], ['Sunflare', 115]],
  },
  Sand: {
    fast: [['Grain Spray', 6], ['Dune Kick', 12], ['Silt Jab', 9]],
    special: [['Desert Wind', 35], ['Mirage Feint', 45], ['Dust Devil', 60], ['Quicksand Pull', 75], ['Canyon Crush', 95]],
  },
  Spore: {
    fast: [['Mold Puff', 5], ['Cap Flick', 9], ['Hypha Lash', 12]],
    special: [['Lichen Grip', 30], ['Mycel Bind', 45], ['Cap Slam', 55], ['Bloom Rot', 70], ['Fungal Wave', 85]],
  },
  Echo: {
    fast: [['Click', 6], ['Chime Tap', 10], ['Pulse Ping', 13]],
    special: [['Reverb Wall', 35], ['Harmonic Lance', 50], ['Resonance', 65], ['Sound Barrier', 90], ['Crescendo', 105]],
  },
  Plain: {
    fast: [['Claw Swipe', 7], ['Quick Tap', 10], ['Nudge', 5]],
    special: [['Hoof Drum', 35], ['Tumble Rush', 40], ['Heavy Flop', 50], ['Headlong Charge', 70], ['Barrel Roll', 85]],
  },
};

/** Words for `classification` ("<word> Creature"), by primary type. */
export const CLASSIFICATIONS: Record<TypeName, readonly string[]> = {
  Ember: ['Kindling', 'Hearth', 'Smolder', 'Cinder'],
  Tide: ['Ripple', 'Shoal', 'Current', 'Lagoon'],
  Bloom: ['Sprout', 'Thicket', 'Meadow', 'Bud'],
  Volt: ['Spark', 'Dynamo', 'Filament', 'Static'],
  Stone: ['Pebble', 'Cliff', 'Bedrock', 'Cairn'],
  Frost: ['Rime', 'Glacier', 'Snowdrift', 'Icicle'],
  Gale: ['Breeze', 'Kite', 'Gust', 'Skyward'],
  Venom: ['Thorn', 'Blight', 'Barb', 'Nettle'],
  Mind: ['Dreaming', 'Riddle', 'Ponder', 'Oracle'],
  Iron: ['Rivet', 'Anvil', 'Gearwork', 'Alloy'],
  Shade: ['Dusk', 'Lurking', 'Umbral', 'Hush'],
  Glow: ['Lantern', 'Dawn', 'Prism', 'Beacon'],
  Sand: ['Dune', 'Mirage', 'Burrow', 'Silt'],
  Spore: ['Mushroom', 'Lichen', 'Mycel', 'Puffball'],
  Echo: ['Chime', 'Hollow', 'Resonant', 'Whistle'],
  Plain: ['Meadowland', 'Homely', 'Tumbling', 'Curious'],
};

/** Syllables for invented name stems: onset + vowel (+ coda), twice. */
export const ONSETS = ['b', 'br', 'd', 'dr', 'f', 'fl', 'g', 'gl', 'k', 'kr', 'l', 'm', 'n', 'p', 'pl', 'r', 's', 'sk', 'sn', 't', 'tr', 'v', 'z', 'th', 'w', 'qu'] as const;
export const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ee', 'y'] as const;
export const CODAS = ['', '', '', 'n', 'r', 'l', 'm', 'k', 'x', 'sh', 'th', 'nd', 'rk', 'lt'] as const;

/** Name endings by place in a family. */
export const SUFFIXES = {
  first: ['it', 'o', 'y', 'let', 'kin', 'ie', 'ling'],
  middle: ['ar', 'en', 'ix', 'or', 'ane', 'ero'],
  last: ['oth', 'arch', 'orus', 'ion', 'ax', 'aron'],
  single: ['is', 'a', 'um', 'ek', 'ope'],
  legendary: ['ovar', 'ythos', 'aurex', 'essa', 'andor'],
} as const;

export type FamilyShape = 'three' | 'two' | 'branch' | 'single' | 'legendary' | 'mythic';

/** A family written by hand: its names (in chain order; for `branch`, the base then its two forms) and types. */
export interface HandFamily {
  shape: FamilyShape;
  names: readonly string[];
  types: readonly TypeName[];
}

/**
 * Hand-authored families, placed first (from #001) in this order. Tests and the explorer's default
 * query use them, so they keep their names whatever the generator's random draws are.
 */
export const HAND_FAMILIES: readonly HandFamily[] = [
  { shape: 'three', names: ['Cindlet', 'Cindrax', 'Cindrathor'], types: ['Ember'] },
  { shape: 'three', names: ['Mossip', 'Mossgrove', 'Mosselder'], types: ['Bloom', 'Spore'] },
  { shape: 'three', names: ['Brinnet', 'Brinnar', 'Brinnoth'], types: ['Tide'] },
  { shape: 'branch', names: ['Voltkit', 'Voltrune', 'Voltanvil'], types: ['Volt'] },
  { shape: 'two', names: ['Pebbro', 'Pebbrock'], types: ['Stone', 'Echo'] },
  { shape: 'single', names: ['Quillosh'], types: ['Gale'] },
];

/** Second types of the branching family's two final forms (the base keeps the family's types). */
export const BRANCH_SECOND_TYPES: readonly [TypeName, TypeName] = ['Mind', 'Iron'];

/** How many families of each shape the 150 numbers hold, hand-authored ones included. */
export const FAMILY_COUNTS: Record<FamilyShape, number> = {
  three: 28,
  branch: 2,
  two: 20,
  single: 12,
  legendary: 5,
  mythic: 3,
};

export const CREATURE_COUNT = 150;

/** The generator's fixed seed. Change it and every invented name and number changes. */
export const SEED = 0x0a91a991;
