/**
 * The usage chart's geometry, from GET /v2/users/me/usage's days: one bar per day (a day without
 * credits has a bar of height 0), heights by credits against a round top, and each bar's words for its
 * <title> and the table beside the chart.
 */
export interface UsageDayView {
  date: string;
  credits: number;
  tasks: number;
  failed: number;
}

export interface Bar {
  date: string;
  x: number;
  y: number;
  width: number;
  height: number;
  title: string;
}

export interface ChartGeometry {
  width: number;
  height: number;
  /** The top of the scale (credits), a round number at least the largest day's. */
  top: number;
  /** The y axis' ticks: value and height. */
  ticks: Array<{ value: number; y: number }>;
  bars: Bar[];
  /** Where the plot area starts and ends (for the axis lines). */
  plot: { left: number; right: number; top: number; bottom: number };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const round = (n: number) => Math.round(n * 100) / 100;

/** A round scale top for `max`: 1, 2 or 5 times a power of ten, split in four ticks or fewer. */
export function scaleTop(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  const unit = [1, 2, 5, 10].find((m) => m * power >= max) ?? 10;
  return unit * power;
}

export function dayWords(day: UsageDayView): string {
  const failed = day.failed ? `, ${day.failed} failed` : '';
  return `${day.date}: ${plural(round(day.credits), 'credit')}, ${plural(day.tasks, 'task')}${failed}`;
}

export function chartGeometry(days: readonly UsageDayView[], size = { width: 720, height: 220 }): ChartGeometry {
  const plot = { left: 48, right: size.width - 8, top: 12, bottom: size.height - 28 };
  const top = scaleTop(Math.max(0, ...days.map((d) => d.credits)));
  const slot = (plot.right - plot.left) / Math.max(1, days.length);
  const scale = (credits: number) => ((plot.bottom - plot.top) * credits) / top;
  const bars = days.map((day, i) => {
    const height = round(scale(day.credits));
    return { date: day.date, x: round(plot.left + i * slot + slot * 0.15), y: round(plot.bottom - height), width: round(slot * 0.7), height, title: dayWords(day) };
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => ({ value: round(top * f), y: round(plot.bottom - scale(top * f)) }));
  return { width: size.width, height: size.height, top, ticks, bars, plot };
}
