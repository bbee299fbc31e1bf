/**
 * Pure formatting for the conversation panel: durations, counts and titles. No DOM, so it is
 * unit-tested on plain Node.
 */
import type { Question, Stats } from '../api/model';

/** `42s`, `3m 05s`, `1h 02m`: compact and stable in width as it ticks. */
export function formatDuration(milliseconds: number): string {
  const totalSeconds = Math.max(0, Math.floor((Number.isFinite(milliseconds) ? milliseconds : 0) / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h ${pad2(minutes)}m`;
  if (minutes > 0) return `${minutes}m ${pad2(seconds)}s`;
  return `${seconds}s`;
}

/** Time since `createdAt` (ISO string) at host time `hostNow`; 0 when the date is unreadable. */
export function elapsedSince(createdAt: string, hostNow: number): number {
  const start = Date.parse(createdAt);
  if (Number.isNaN(start)) return 0;
  return Math.max(0, hostNow - start);
}

/** `950`, `1.2k`, `12.3k`, `123k`, `3.4M`: token counts at a glance. */
export function formatCount(value: number): string {
  if (!Number.isFinite(value) || value < 0) return '0';
  if (value < 1000) return String(Math.round(value));
  if (value < 1_000_000) return scaled(value / 1000, 'k');
  if (value < 1_000_000_000) return scaled(value / 1_000_000, 'M');
  return scaled(value / 1_000_000_000, 'B');
}

/** Credits may be fractional: at most two decimals, no trailing zeros. */
export function formatCredits(value: number): string {
  if (!Number.isFinite(value) || value < 0) return '0';
  return String(Math.round(value * 100) / 100);
}

export function plural(count: number, one: string, many: string): string {
  return count === 1 ? one : many;
}

/** The parts of the compact stats line, empty when the server sent no stats at all. */
export function statsParts(stats: Stats): { kind: 'time' | 'toolCalls' | 'tokens' | 'credits'; text: string }[] {
  const parts: { kind: 'time' | 'toolCalls' | 'tokens' | 'credits'; text: string }[] = [];
  if (stats.timeMillis > 0) parts.push({ kind: 'time', text: formatDuration(stats.timeMillis) });
  if (stats.toolCalls > 0) {
    parts.push({ kind: 'toolCalls', text: `${stats.toolCalls} ${plural(stats.toolCalls, 'tool call', 'tool calls')}` });
  }
  if (stats.totalTokens > 0) {
    parts.push({ kind: 'tokens', text: `${formatCount(stats.totalTokens)} ${plural(stats.totalTokens, 'token', 'tokens')}` });
  }
  if (stats.credits > 0) {
    parts.push({ kind: 'credits', text: `${formatCredits(stats.credits)} ${plural(stats.credits, 'credit', 'credits')}` });
  }
  return parts;
}

/** A conversation is called by its first question's title, else by that question's text. */
export function conversationTitle(questions: readonly Question[], fallback: string): string {
  const first = [...questions].sort((a, b) => a.id - b.id)[0];
  const title = first?.title?.trim() || first?.text.trim();
  return title || fallback;
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

function scaled(value: number, unit: string): string {
  // One decimal while it still says something (12.3k), none once it would be noise (123k).
  const text = value < 100 ? (Math.floor(value * 10) / 10).toFixed(1).replace(/\.0$/, '') : String(Math.floor(value));
  return `${text}${unit}`;
}
