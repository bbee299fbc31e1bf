/**
 * Pure formatting shared by the extension host (tree, notifications) and the panel's webview:
 * durations, counts, stats and titles. No DOM and no `vscode`, so it runs on both sides and is
 * unit-tested on plain Node. Words go through `@vscode/l10n`, configured with VS Code's bundle on
 * each side (`extension.ts`, `webview/main.ts`).
 */
import * as l10n from '@vscode/l10n';
import type { Stats } from './model/conversation';

/** `42s`, `3m 05s`, `1h 02m`: compact and stable in width as it ticks. */
export function formatDuration(milliseconds: number): string {
  const totalSeconds = Math.max(0, Math.floor((Number.isFinite(milliseconds) ? milliseconds : 0) / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return l10n.t('{0}h {1}m', hours, pad2(minutes));
  if (minutes > 0) return l10n.t('{0}m {1}s', minutes, pad2(seconds));
  return l10n.t('{0}s', seconds);
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

/**
 * The parts of the compact stats line, empty when the server sent no stats at all. One and many are
 * separate messages (`1 token`, `{0} tokens`) so that translations need not glue words together.
 */
export function statsParts(stats: Stats): { kind: 'time' | 'toolCalls' | 'tokens' | 'credits'; text: string }[] {
  const parts: { kind: 'time' | 'toolCalls' | 'tokens' | 'credits'; text: string }[] = [];
  if (stats.timeMillis > 0) parts.push({ kind: 'time', text: formatDuration(stats.timeMillis) });
  if (stats.toolCalls > 0) {
    const text = stats.toolCalls === 1 ? l10n.t('1 tool call') : l10n.t('{0} tool calls', stats.toolCalls);
    parts.push({ kind: 'toolCalls', text });
  }
  if (stats.totalTokens > 0) {
    const text = stats.totalTokens === 1 ? l10n.t('1 token') : l10n.t('{0} tokens', formatCount(stats.totalTokens));
    parts.push({ kind: 'tokens', text });
  }
  if (stats.credits > 0) {
    const text = stats.credits === 1 ? l10n.t('1 credit') : l10n.t('{0} credits', formatCredits(stats.credits));
    parts.push({ kind: 'credits', text });
  }
  return parts;
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

function scaled(value: number, unit: string): string {
  // One decimal while it still says something (12.3k), none once it would be noise (123k).
  const text = value < 100 ? (Math.floor(value * 10) / 10).toFixed(1).replace(/\.0$/, '') : String(Math.floor(value));
  return `${text}${unit}`;
}
