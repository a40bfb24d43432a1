/**
 * UpdateCollector's `updateMask` (AIP-134, AIP-161): comma-separated field paths in snake_case or
 * lowerCamelCase (the GAPIC client sends them as the caller wrote them), `*` for every mutable field,
 * `labels.<key>` for one label. Output-only and unknown paths are INVALID_ARGUMENT.
 */
import { ApiError } from '../../kernel/errors.js';
import { COLLECTOR_MUTABLE, COLLECTOR_OUTPUT_ONLY, type Collector, type CollectorMutableField } from './model.js';

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const bad = (message: string) => new ApiError('INVALID_ARGUMENT', 'Invalid update mask.', { fields: { updateMask: [message] } });

/** The normalized mask: mutable field names and `labels.<key>` paths. Absent or empty means every mutable field. */
export function parseUpdateMask(text: string | undefined): string[] {
  if (text === undefined || text.trim() === '') return [...COLLECTOR_MUTABLE];
  const out = new Set<string>();
  for (const raw of text.split(',')) {
    const path = raw.trim();
    if (!path) throw bad(`empty path in "${text}"`);
    if (path === '*') {
      for (const f of COLLECTOR_MUTABLE) out.add(f);
      continue;
    }
    const [head = '', ...rest] = path.split('.');
    const field = camel(head);
    if (field === 'labels' && rest.length) {
      const key = rest.join('.');
      if (!/^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u.test(key)) throw bad(`"${path}" does not name a valid label key`);
      out.add(`labels.${key}`);
      continue;
    }
    if (rest.length) throw bad(`"${path}": ${field} has no sub-fields that can be updated`);
    if ((COLLECTOR_MUTABLE as readonly string[]).includes(field)) {
      out.add(field);
      continue;
    }
    if ((COLLECTOR_OUTPUT_ONLY as readonly string[]).includes(field)) {
      throw bad(`"${path}" is output only and cannot be updated; updatable fields: ${COLLECTOR_MUTABLE.join(', ')}`);
    }
    throw bad(`"${path}" is not a Collector field; updatable fields: ${COLLECTOR_MUTABLE.join(', ')}`);
  }
  // A whole-map path makes per-key paths redundant.
  if (out.has('labels')) for (const p of [...out]) if (p.startsWith('labels.')) out.delete(p);
  return [...out];
}

/** Applies the masked fields of `values` to a collector: a masked field absent from `values` is cleared. */
export function applyMask(collector: Collector, mask: readonly string[], values: Partial<Pick<Collector, CollectorMutableField>>): Collector {
  const next: Collector = { ...collector, labels: collector.labels ? { ...collector.labels } : undefined };
  for (const path of mask) {
    if (path.startsWith('labels.')) {
      const key = path.slice('labels.'.length);
      const labels = { ...next.labels };
      const value = values.labels?.[key];
      if (value === undefined) delete labels[key];
      else labels[key] = value;
      next.labels = labels;
      continue;
    }
    const field = path as CollectorMutableField;
    const value = values[field];
    if (value === undefined) delete next[field];
    else (next as unknown as Record<string, unknown>)[field] = value;
  }
  if (next.labels && Object.keys(next.labels).length === 0) delete next.labels;
  return next;
}
