/**
 * Host-side wording of times and stats for the tree, status bar and notifications.
 */
import * as vscode from 'vscode';
import type { Stats } from '../model/conversation';
import { statsParts } from '../format';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];

/** "5 minutes ago", "yesterday", "just now". */
export function formatRelativeTime(iso: string, now = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return '';
  const elapsed = now - time;
  const format = new Intl.RelativeTimeFormat(vscode.env.language, { numeric: 'auto' });
  for (const [unit, size] of UNITS) {
    if (Math.abs(elapsed) >= size) return format.format(-Math.round(elapsed / size), unit);
  }
  return vscode.l10n.t('just now');
}

export function formatStats(stats: Stats): string {
  return statsParts(stats)
    .map((part) => part.text)
    .join(' · ');
}
