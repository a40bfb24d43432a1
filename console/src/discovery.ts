/**
 * What the service can do, as /v2/operations and /v2/convert/formats answer: the forms and format
 * lists are built from these rows, so a new operation, format or option shows without a change here.
 */
import { apiData } from './api';

export interface OptionView {
  name: string;
  type: 'string' | 'integer' | 'float' | 'boolean' | 'enum' | 'dictionary';
  default: unknown;
  possible_values?: unknown[];
  description?: string;
}

export interface OperationRow {
  operation: string;
  input_format: string | null;
  output_format: string | null;
  engine: string | null;
  credits: number;
  meta: { group: string };
  options?: OptionView[];
}

const cache = new Map<string, Promise<OperationRow[]>>();

function cached(path: string): Promise<OperationRow[]> {
  let rows = cache.get(path);
  if (!rows) {
    rows = apiData<OperationRow[]>('GET', path);
    cache.set(path, rows);
    rows.catch(() => cache.delete(path));
  }
  return rows;
}

/** The convert rows for an input format (every output it has, each with its options). */
export const convertRowsFor = (inputFormat: string) =>
  cached(`/v2/convert/formats?filter[input_format]=${encodeURIComponent(inputFormat)}&include=options`);

/** Every operation row (one per operation, format pair and default engine), with options. */
export const allOperations = () => cached('/v2/operations?include=options');

/** The input format of a file name, as the service names formats (its extension, lower case). */
export function formatOfName(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}
