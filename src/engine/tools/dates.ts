/**
 * Dates as callers write them for `after`/`before`: `2024-05-01`, `05/01/2024`, `2024-05-01T10:00Z`,
 * `november 2023`, `nov 5, 2023`, `1 week ago`, `an hour ago`, `yesterday`, `today`, `last month`.
 * A date without a time covers its whole day (or month, or year): `after` starts at its beginning,
 * `before` ends at its end. Anything else is refused with the accepted forms, never guessed.
 */
import { ToolError } from '../repo/context';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const UNIT_MS: Readonly<Record<string, number>> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
};

interface Period {
  start: Date;
  /** Exclusive end. */
  end: Date;
}

/** The instant `after`/`before` stands for, as an ISO timestamp git understands. */
export function parseDateBound(value: string, which: 'after' | 'before', now = new Date()): Date {
  const period = parsePeriod(value.trim().toLowerCase(), now);
  if (!period) {
    throw new ToolError(
      `${which} ${JSON.stringify(value.slice(0, 80))} is not a date this tool understands: write e.g. 2024-05-31, 05/31/2024, "may 2024", "2 weeks ago", "yesterday" or "last month".`,
    );
  }
  return which === 'after' ? period.start : new Date(period.end.getTime() - 1000);
}

function parsePeriod(text: string, now: Date): Period | undefined {
  if (text === 'now') return { start: now, end: now };
  if (text === 'today') return day(now);
  if (text === 'yesterday') return day(new Date(now.getTime() - 86_400_000));
  const relative = /^(\d+|a|an|one)\s+(second|minute|hour|day|week|month|year)s?\s+ago$/.exec(text);
  if (relative) {
    const amount = /^\d+$/.test(relative[1] ?? '') ? Number(relative[1]) : 1;
    const at = shift(now, relative[2] ?? 'day', amount);
    return at ? { start: at, end: at } : undefined;
  }
  const last = /^(last|past|previous)\s+(day|week|month|year)$/.exec(text);
  if (last) {
    const at = shift(now, last[2] ?? 'day', 1);
    return at ? { start: at, end: at } : undefined;
  }
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (iso) return dayOf(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const american = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (american) return dayOf(Number(american[3]), Number(american[1]), Number(american[2]));
  if (/^\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?$/.test(text)) {
    const at = new Date(text.replace(' ', 'T').toUpperCase());
    return Number.isNaN(at.getTime()) ? undefined : { start: at, end: at };
  }
  const monthYear = /^([a-z]+)\.?\s+(\d{4})$/.exec(text);
  if (monthYear) {
    const month = monthIndex(monthYear[1] ?? '');
    if (month === undefined) return undefined;
    const year = Number(monthYear[2]);
    return { start: new Date(Date.UTC(year, month, 1)), end: new Date(Date.UTC(year, month + 1, 1)) };
  }
  const monthDayYear = /^([a-z]+)\.?\s+(\d{1,2})(st|nd|rd|th)?,?\s+(\d{4})$/.exec(text);
  if (monthDayYear) {
    const month = monthIndex(monthDayYear[1] ?? '');
    return month === undefined ? undefined : dayOf(Number(monthDayYear[4]), month + 1, Number(monthDayYear[2]));
  }
  const year = /^(\d{4})$/.exec(text);
  if (year) return { start: new Date(Date.UTC(Number(year[1]), 0, 1)), end: new Date(Date.UTC(Number(year[1]) + 1, 0, 1)) };
  return undefined;
}

function monthIndex(name: string): number | undefined {
  if (name.length < 3) return undefined;
  const index = MONTHS.findIndex((month) => month.startsWith(name));
  return index < 0 ? undefined : index;
}

function dayOf(year: number, month: number, date: number): Period | undefined {
  const start = new Date(Date.UTC(year, month - 1, date));
  if (start.getUTCFullYear() !== year || start.getUTCMonth() !== month - 1 || start.getUTCDate() !== date) return undefined;
  return { start, end: new Date(start.getTime() + 86_400_000) };
}

function day(at: Date): Period {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  return { start, end: new Date(start.getTime() + 86_400_000) };
}

function shift(now: Date, unit: string, amount: number): Date | undefined {
  if (amount > 100_000) return undefined;
  if (unit === 'month' || unit === 'year') {
    const at = new Date(now.getTime());
    if (unit === 'month') at.setUTCMonth(at.getUTCMonth() - amount);
    else at.setUTCFullYear(at.getUTCFullYear() - amount);
    return at;
  }
  const ms = UNIT_MS[unit];
  return ms === undefined ? undefined : new Date(now.getTime() - amount * ms);
}

/** `--since=…`/`--until=…` arguments for the bounds given. */
export function dateArguments(after: string | undefined, before: string | undefined): string[] {
  const args: string[] = [];
  const since = after === undefined || after.trim() === '' ? undefined : parseDateBound(after, 'after');
  const until = before === undefined || before.trim() === '' ? undefined : parseDateBound(before, 'before');
  if (since && until && since.getTime() > until.getTime()) {
    throw new ToolError(`after (${since.toISOString()}) is later than before (${until.toISOString()}): swap them or widen the range.`);
  }
  if (since) args.push(`--since=${gitDate(since)}`);
  if (until) args.push(`--until=${gitDate(until)}`);
  return args;
}

/** `2024-05-01 10:00:00 +0000`: a form every git version parses exactly. */
function gitDate(at: Date): string {
  const clamped = new Date(Math.min(Math.max(at.getTime(), 0), Date.UTC(9999, 0, 1)));
  return `${clamped.toISOString().slice(0, 19).replace('T', ' ')} +0000`;
}
