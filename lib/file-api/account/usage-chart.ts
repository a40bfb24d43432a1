/**
 * The usage chart: credits per day as an SVG bar chart, rendered on the server as a string. One bar
 * per day of the range (a day without credits has a bar of height 0), its height by the day's credits;
 * a y axis in credits with round steps, day labels spaced so they never overlap; each bar carries a
 * `<title>` (the day, its credits and tasks) that browsers show on hover and screen readers read, and
 * the whole chart a title and a description. Self-contained: no script, no style sheet, no external
 * reference, every text escaped.
 */
import { escapeMarkup as escapeXml } from '../../kernel/text.js';
import type { UsageDay } from './usage.js';

export interface UsageChartOptions {
  width?: number;
  height?: number;
  /** Shown above the chart and read as its name. */
  title?: string;
  /** Prefix of the element ids (the chart's title and description), unique on the page. */
  id?: string;
}

const MARGIN = { top: 32, right: 12, bottom: 44, left: 52 };
const BAR_COLOR = '#2563eb';
const AXIS_COLOR = '#4b5563';
const GRID_COLOR = '#e5e7eb';
/** The least room a day label needs, in pixels. */
const LABEL_SPACING = 48;

/** A round step for `max` in at most `ticks` steps: 1, 2 or 5 times a power of ten. */
function step(max: number, ticks: number): number {
  const raw = max / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = [1, 2, 5, 10].find((m) => m * power >= raw) ?? 10;
  return Math.max(1, unit * power);
}

const num = (n: number) => String(Math.round(n * 100) / 100);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The SVG of a range's days (as the usage report lists them, oldest first). */
export function renderUsageChart(days: ReadonlyArray<Pick<UsageDay, 'date' | 'credits' | 'tasks'>>, opts: UsageChartOptions = {}): string {
  const width = opts.width ?? 720;
  const height = opts.height ?? 260;
  const id = opts.id ?? 'usage-chart';
  const first = days[0]?.date ?? '';
  const last = days.at(-1)?.date ?? '';
  const title = opts.title ?? 'Credits per day';
  const total = days.reduce((sum, d) => sum + d.credits, 0);
  const description = days.length ? `${plural(total, 'credit')} from ${first} to ${last} (UTC), one bar per day.` : 'No days to show.';

  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const bottom = MARGIN.top + plotHeight;
  const highest = Math.max(0, ...days.map((d) => d.credits));
  const tick = step(Math.max(highest, 1), 4);
  const top = Math.max(tick, Math.ceil(highest / tick) * tick);
  const y = (credits: number) => bottom - (credits / top) * plotHeight;

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${escapeXml(id)}-title" aria-describedby="${escapeXml(id)}-desc" font-family="sans-serif" font-size="11">`,
    `<title id="${escapeXml(id)}-title">${escapeXml(title)}</title>`,
    `<desc id="${escapeXml(id)}-desc">${escapeXml(description)}</desc>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="18" font-size="13" font-weight="bold" fill="#111827">${escapeXml(title)}</text>`,
  );

  // The y axis: grid lines and labels at round steps, the unit beside it.
  for (let value = 0; value <= top; value += tick) {
    const at = num(y(value));
    parts.push(
      `<line x1="${MARGIN.left}" y1="${at}" x2="${MARGIN.left + plotWidth}" y2="${at}" stroke="${value === 0 ? AXIS_COLOR : GRID_COLOR}"/>`,
      `<text x="${MARGIN.left - 6}" y="${at}" dy="0.32em" text-anchor="end" fill="${AXIS_COLOR}">${value}</text>`,
    );
  }
  parts.push(
    `<text transform="translate(14 ${num(MARGIN.top + plotHeight / 2)}) rotate(-90)" text-anchor="middle" fill="${AXIS_COLOR}">credits</text>`,
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${bottom}" stroke="${AXIS_COLOR}"/>`,
  );

  // One bar per day; a label every `every` days, so that labels keep LABEL_SPACING apart.
  const slot = days.length ? plotWidth / days.length : plotWidth;
  const barWidth = Math.max(1, slot * 0.7);
  const every = Math.max(1, Math.ceil(LABEL_SPACING / slot));
  days.forEach((day, i) => {
    const x = MARGIN.left + i * slot + (slot - barWidth) / 2;
    const barTop = y(day.credits);
    parts.push(
      `<rect class="bar" x="${num(x)}" y="${num(barTop)}" width="${num(barWidth)}" height="${num(bottom - barTop)}" fill="${BAR_COLOR}">` +
        `<title>${escapeXml(`${day.date}: ${plural(day.credits, 'credit')}, ${plural(day.tasks, 'task')}`)}</title></rect>`,
    );
    if (i % every === 0) {
      parts.push(`<text x="${num(MARGIN.left + i * slot + slot / 2)}" y="${bottom + 16}" text-anchor="middle" fill="${AXIS_COLOR}">${escapeXml(day.date.slice(5))}</text>`);
    }
  });
  if (days.length) {
    parts.push(`<text x="${MARGIN.left + plotWidth}" y="${bottom + 34}" text-anchor="end" fill="${AXIS_COLOR}">${escapeXml(`${first} – ${last} (UTC)`)}</text>`);
  }
  parts.push('</svg>');
  return parts.join('');
}
