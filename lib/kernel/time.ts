/** Timestamps as the file API writes them: ISO 8601, second precision, explicit offset. */
export function toIsoSeconds(date: Date | string | number): string {
  return new Date(date).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
