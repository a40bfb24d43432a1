/**
 * Discovery for the job builder. The rows without options (every operation and format pair, about
 * 1 MB) say what can be added and which formats each operation has. A task's options are read for its
 * one row when it needs them (`include=options` for every row would be over 6 MB).
 */
import { apiData } from './api';
import type { OperationRow, OptionView } from './discovery';

let rows: Promise<OperationRow[]> | undefined;
const options = new Map<string, Promise<OptionView[]>>();

/** Every operation row (default engines), without options. */
export function operationRows(): Promise<OperationRow[]> {
  rows ??= apiData<OperationRow[]>('GET', '/v2/operations');
  rows.catch(() => (rows = undefined));
  return rows;
}

/** The options of one row: its operation and formats, as discovery answers for that row. */
export function optionsOfRow(row: Pick<OperationRow, 'operation' | 'input_format' | 'output_format'>): Promise<OptionView[]> {
  const query = new URLSearchParams({ 'filter[operation]': row.operation, include: 'options' });
  if (row.input_format) query.set('filter[input_format]', row.input_format);
  if (row.output_format) query.set('filter[output_format]', row.output_format);
  const path = `/v2/operations?${query.toString()}`;
  let found = options.get(path);
  if (!found) {
    found = apiData<OperationRow[]>('GET', path).then((answer) => answer[0]?.options ?? []);
    options.set(path, found);
    found.catch(() => options.delete(path));
  }
  return found;
}
