/** Pure formatting of rebuild progress: counts, rates, time left, a bar. */

export interface ProgressSnapshot {
  done: number;
  total: number;
  elapsedMs: number;
}

export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

const PLURALS: Record<string, string> = { alias: 'aliases', 'series point': 'series points', embedding: 'embeddings', node: 'nodes', edge: 'edges', event: 'events' };

/** `1 node`, `1,200 nodes`, `2 aliases`. */
export function countOf(n: number, singular: string): string {
  return `${formatCount(n)} ${n === 1 ? singular : (PLURALS[singular] ?? `${singular}s`)}`;
}

/** `h:mm:ss` or `m:ss`; `--:--` when unknown. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** Events per second so far (0 before any time has passed). */
export function ratePerSecond(p: ProgressSnapshot): number {
  return p.elapsedMs > 0 ? (p.done * 1000) / p.elapsedMs : 0;
}

/** Seconds left at the rate so far; null until there is a rate. */
export function etaSeconds(p: ProgressSnapshot): number | null {
  const rate = ratePerSecond(p);
  if (p.done >= p.total) return 0;
  return rate > 0 ? (p.total - p.done) / rate : null;
}

export function fraction(p: ProgressSnapshot): number {
  if (p.total <= 0) return 1;
  return Math.min(1, Math.max(0, p.done / p.total));
}

export function progressBar(f: number, width: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, f)) * width);
  return '[' + '#'.repeat(filled) + '-'.repeat(width - filled) + ']';
}

/**
 * `label [####------]  42% 420,000/1,000,000 events  123,456 events/s  ETA 0:05` on a
 * terminal; the same without the bar on plain output (logs, pipes). `unit` names what is
 * counted (events unless said: `MB` while reading a file, `objects` while staging an import).
 */
export function progressLine(label: string, p: ProgressSnapshot, opts: { bar: boolean; width?: number; unit?: string }): string {
  const pct = `${Math.floor(fraction(p) * 100)}%`.padStart(4);
  const unit = opts.unit ?? 'events';
  const parts = [
    label,
    ...(opts.bar ? [progressBar(fraction(p), opts.width ?? 24)] : []),
    pct,
    `${formatCount(p.done)}/${formatCount(p.total)} ${unit}`,
    `${formatCount(ratePerSecond(p))} ${unit}/s`,
    `ETA ${formatDuration(etaSeconds(p))}`,
  ];
  return parts.join('  ');
}

/** Terminal width used when the terminal reports none (0 or undefined, e.g. some CI ptys). */
export const FALLBACK_COLUMNS = 80;
const MAX_BAR = 24;

/** The terminal's width, or 80 when it reports none (0 or undefined). */
export function terminalWidth(columns: number | undefined): number {
  return columns !== undefined && Number.isFinite(columns) && columns > 0 ? Math.floor(columns) : FALLBACK_COLUMNS;
}
const MIN_BAR = 5;

/**
 * The progress line for a terminal `columns` wide (0 or undefined: 80), padded to fill it: the
 * counts, rate and ETA always fit before the bar does, so the bar shrinks (down to 5) or goes
 * on a narrow terminal instead of cutting them off. Lines that still do not fit are cut.
 */
export function terminalProgressLine(label: string, p: ProgressSnapshot, columns: number | undefined, unit?: string): string {
  const width = terminalWidth(columns) - 1;
  const plain = progressLine(label, p, { bar: false, unit });
  const room = width - plain.length - 4; // the bar takes its width, two brackets and two spaces
  const line = room >= MIN_BAR ? progressLine(label, p, { bar: true, width: Math.min(MAX_BAR, room), unit }) : plain;
  return line.length > width ? line.slice(0, width) : line.padEnd(width);
}
