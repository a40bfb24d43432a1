/** Three significant figures at most, thousands grouped: stable text for a stable input. */
export function fmt(n: number): string {
  if (n === 0) return '0';
  const digits = n >= 100 ? 0 : n >= 10 ? 1 : n >= 1 ? 2 : Math.min(6, 2 - Math.floor(Math.log10(n)));
  const [whole, fraction] = n.toFixed(digits).split('.');
  return whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (fraction ? `.${fraction}` : '');
}

