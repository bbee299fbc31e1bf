/**
 * What every figure reports and how the run prints it: one Markdown row per measured figure, with
 * the baseline measured in the same run and a verdict against the goal.
 */
import { type Summary } from './stats';

export interface Row {
  /** What is measured, e.g. `answer visible after completion, p50`. */
  figure: string;
  measured: string;
  /** The baseline measured in the same run, or `—` when the goal is absolute. */
  baseline: string;
  goal: string;
  /** Undefined for a row that informs without a goal of its own. */
  met?: boolean;
  /** The raw numbers behind the row (written to the JSON only). */
  data?: Record<string, unknown>;
}

export interface BenchContext {
  quick: boolean;
  /** The repository root. */
  root: string;
  /** A scratch folder for this run under `.bench/` (git-ignored). */
  scratch: string;
  log(line: string): void;
}

export interface Figure {
  /** Short name used by `--only`. */
  id: string;
  title: string;
  /**
   * Counts rather than times (so other figures' load cannot change it): runs alongside the
   * others instead of adding its own minute to the run.
   */
  alongside?: boolean;
  run(context: BenchContext): Promise<Row[]>;
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return '—';
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  if (value >= 10) return `${value.toFixed(0)} ms`;
  return `${value.toFixed(value >= 1 ? 1 : 2)} ms`;
}

export function kb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MB` : `${(bytes / 1024).toFixed(0)} KB`;
}

/** `median (min–max, n)` in milliseconds. */
export function spread(summary: Summary, format: (value: number) => string = ms): string {
  return `${format(summary.median)} (${format(summary.min)}–${format(summary.max)}, n=${summary.n})`;
}

export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : '—';
}

export function table(rows: readonly Row[]): string {
  const header = ['figure', 'measured', 'baseline (same run)', 'goal', 'met'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) {
    const cells = [row.figure, row.measured, row.baseline, row.goal, row.met === undefined ? '—' : row.met ? 'yes' : '**no**'];
    lines.push(`| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`);
  }
  return lines.join('\n');
}
