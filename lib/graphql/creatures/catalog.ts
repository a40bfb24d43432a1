/**
 * The creature catalog: the committed records, indexed once (by number, lower-cased name and id) so
 * every lookup and evolution link is O(1). Pure and synchronous; GraphQL-free.
 */
import file from '../../../data/creatures/creatures.json' with { type: 'json' };
import { invalid } from '../../kernel/errors.js';
import type { CreatureFile, CreatureRecord, CreatureRef } from './model.js';

/** Largest page `creatures(first:)` returns; larger values are reduced to it. */
export const MAX_PAGE_SIZE = 150;

export interface ListOptions {
  /** How many to return; absent means a whole page, values above the page size are reduced to it. */
  first?: number | null;
  /** The id of the last creature of the previous page. */
  after?: string | null;
  /** Only creatures with this type (either slot, case-insensitive). */
  type?: string | null;
}

/** Opaque global id of a creature: base64url of `Creature:<number>`. */
export const creatureId = (number: string): string => Buffer.from(`Creature:${number}`).toString('base64url');

function numberFromId(id: string): string | undefined {
  const decoded = Buffer.from(id, 'base64url').toString('utf8');
  const match = /^Creature:(\d{1,3})$/.exec(decoded);
  return match?.[1];
}

/** "7", "07" and "007" all mean creature number "007". */
function normalizeNumber(number: string): string | undefined {
  const trimmed = number.trim();
  if (!/^\d{1,3}$/.test(trimmed)) return undefined;
  return trimmed.padStart(3, '0');
}

export class CreatureCatalog {
  readonly all: readonly CreatureRecord[];
  readonly maxPageSize: number;
  /** Type names as the data spells them, alphabetically. */
  readonly typeNames: readonly string[];
  readonly #byNumber = new Map<string, CreatureRecord>();
  readonly #byName = new Map<string, CreatureRecord>();
  readonly #indexOf = new Map<CreatureRecord, number>();
  readonly #typeByLowerName = new Map<string, string>();

  constructor(records: readonly CreatureRecord[], opts: { maxPageSize?: number } = {}) {
    this.all = records;
    this.maxPageSize = opts.maxPageSize ?? MAX_PAGE_SIZE;
    records.forEach((record, index) => {
      if (this.#byNumber.has(record.number)) throw new Error(`duplicate creature number ${record.number}`);
      if (this.#byName.has(record.name.toLowerCase())) throw new Error(`duplicate creature name ${record.name}`);
      this.#byNumber.set(record.number, record);
      this.#byName.set(record.name.toLowerCase(), record);
      this.#indexOf.set(record, index);
      for (const type of record.types) {
        if (!this.#typeByLowerName.has(type.toLowerCase())) this.#typeByLowerName.set(type.toLowerCase(), type);
      }
    });
    this.typeNames = [...this.#typeByLowerName.values()].sort();
    // Fail at load, not at query time, when a link points nowhere.
    for (const record of records) {
      for (const ref of [...record.evolutions, ...record.previousEvolutions]) {
        if (!this.#byNumber.has(ref.number)) throw new Error(`creature ${record.number} links to unknown creature ${ref.number}`);
      }
    }
  }

  idOf(record: CreatureRecord): string {
    return creatureId(record.number);
  }

  byNumber(number: string): CreatureRecord | undefined {
    const normalized = normalizeNumber(number);
    return normalized === undefined ? undefined : this.#byNumber.get(normalized);
  }

  /** Case-insensitive, ignoring surrounding spaces. */
  byName(name: string): CreatureRecord | undefined {
    return this.#byName.get(name.trim().toLowerCase());
  }

  byId(id: string): CreatureRecord | undefined {
    const number = numberFromId(id.trim());
    return number === undefined ? undefined : this.#byNumber.get(number);
  }

  /**
   * One creature matching every given criterion, or undefined when none does (or the criteria name
   * different creatures). Throws INVALID_ARGUMENT when no criterion is given.
   */
  find(criteria: { name?: string | null; id?: string | null; number?: string | null }): CreatureRecord | undefined {
    const found: Array<CreatureRecord | undefined> = [];
    if (criteria.name != null) found.push(this.byName(criteria.name));
    if (criteria.id != null) found.push(this.byId(criteria.id));
    if (criteria.number != null) found.push(this.byNumber(criteria.number));
    if (!found.length) throw invalid('creature needs an argument: name (e.g. "Cindlet"), id or number (e.g. "001")');
    const [first] = found;
    return found.every((r) => r === first) ? first : undefined;
  }

  /** Creatures in number order, filtered and paged. Throws INVALID_ARGUMENT on a bad argument. */
  list(opts: ListOptions = {}): CreatureRecord[] {
    const { first, after, type } = opts;
    if (first != null && first < 0) {
      throw invalid(`first must be between 0 and ${this.maxPageSize}, got ${first}`, { first: ['must not be negative'] });
    }
    const size = Math.min(first ?? this.maxPageSize, this.maxPageSize);

    let typeName: string | undefined;
    if (type != null) {
      typeName = this.#typeByLowerName.get(type.trim().toLowerCase());
      if (!typeName) {
        throw invalid(`unknown type "${type}"; known types: ${this.typeNames.join(', ')}`, { type: [...this.typeNames] });
      }
    }

    let start = 0;
    if (after != null) {
      const afterRecord = this.byId(after);
      if (!afterRecord) {
        throw invalid(`after must be the id of a creature (the last id of the previous page), got "${after}"`, {
          after: ['unknown creature id'],
        });
      }
      start = (this.#indexOf.get(afterRecord) ?? -1) + 1;
    }

    const out: CreatureRecord[] = [];
    for (let i = start; i < this.all.length && out.length < size; i++) {
      const record = this.all[i] as CreatureRecord;
      if (!typeName || record.types.includes(typeName)) out.push(record);
    }
    return out;
  }

  resolve(refs: readonly CreatureRef[]): CreatureRecord[] {
    return refs.map((ref) => this.#byNumber.get(ref.number) as CreatureRecord);
  }
}

let catalog: CreatureCatalog | undefined;

/** The catalog of the committed data, built once per process. */
export function creatureCatalog(): CreatureCatalog {
  catalog ??= new CreatureCatalog((file as CreatureFile).creatures);
  return catalog;
}
