/**
 * An answer as text for places outside the panel: VS Code's chat and its agent's tools. Links are
 * made absolute on the instance (a relative link means nothing there), or handed to `rewrite` to
 * point at the editor; sources follow the answer as a list. Everything is bounded: an answer of a
 * runaway server is cut with a note. No `vscode` import; the words go through `@vscode/l10n`.
 */
import * as l10n from '@vscode/l10n';
import type { Conversation, Question, Turn } from '../model/conversation';
import { linkTarget } from '../model/linkTarget';

/** Longest answer passed on, in characters. */
export const MAX_ANSWER_CHARACTERS = 100_000;
const MAX_SOURCES = 50;
const MAX_LINKS = 2_000;

/**
 * Markdown with every inline link's target replaced by `rewrite(href)` (kept when it answers
 * undefined). Link targets with spaces or parentheses are left as they are.
 */
export function rewriteLinks(markdown: string, rewrite: (href: string) => string | undefined): string {
  let count = 0;
  return markdown.replace(/\]\(([^()\s]{1,2000})\)/g, (whole, href: string) => {
    if (++count > MAX_LINKS) return whole;
    const target = rewrite(href);
    return target === undefined ? whole : `](${target})`;
  });
}

/** A link of the answer as an absolute URL on the instance (undefined for one that cannot be opened). */
export function absoluteLink(href: string, instanceUrl: string): string | undefined {
  const target = linkTarget(href, instanceUrl);
  return target.kind === 'refused' ? undefined : target.url;
}

/** The answer cut to its bound, with a note when cut. */
export function boundedAnswer(answer: string | undefined): string {
  const text = answer ?? '';
  if (text.length <= MAX_ANSWER_CHARACTERS) return text;
  const note = l10n.t(
    '(The answer is longer than {0} characters and was cut here: open the conversation for the rest.)',
    MAX_ANSWER_CHARACTERS.toLocaleString('en-US'),
  );
  return `${text.slice(0, MAX_ANSWER_CHARACTERS)}\n\n${note}`;
}

/** The sources worth listing: those with a link that opens, each once, at most MAX_SOURCES. */
export function listedSources(question: Question, instanceUrl: string): Array<{ label: string; url: string; href: string }> {
  const seen = new Set<string>();
  const listed: Array<{ label: string; url: string; href: string }> = [];
  for (const source of question.sources) {
    const url = absoluteLink(source.link, instanceUrl);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    listed.push({ label: (source.label || source.path || url).slice(0, 200), url, href: source.link });
    if (listed.length === MAX_SOURCES) break;
  }
  return listed;
}

/** A finished question as the agent reads it: the answer with absolute links, then its sources. */
export function answerForAgent(question: Question, instanceUrl: string): string {
  const answer = rewriteLinks(boundedAnswer(question.answer), (href) => absoluteLink(href, instanceUrl));
  const sources = listedSources(question, instanceUrl);
  if (sources.length === 0) return answer;
  return `${answer}\n\n${l10n.t('Sources:')}\n${sources.map((source) => `- [${escapeLabel(source.label)}](${source.url})`).join('\n')}`;
}

/** A whole conversation as the agent reads it (the tool that reads one for context). */
export function conversationForAgent(conversation: Conversation, instanceUrl: string): string {
  const questions = conversation.questions.slice(-20);
  const parts = questions.map((question, index) => {
    const state = question.state === 'completed' ? '' : ` (${question.state}${question.error ? `: ${question.error.title || question.error.message}` : ''})`;
    const answer = answerForAgent(question, instanceUrl) || l10n.t('(no answer yet)');
    return `## ${l10n.t('Question {0}', index + 1)}${state}\n\n${question.text.slice(0, 20_000)}\n\n## ${l10n.t('Answer {0}', index + 1)}\n\n${answer}`;
  });
  const title = (conversation.title ?? conversation.questions[0]?.title ?? conversation.questions[0]?.text ?? '').slice(0, 200);
  const heading = title ? l10n.t('Deep Search conversation {0}: {1}', conversation.id, title) : l10n.t('Deep Search conversation {0}', conversation.id);
  return [`# ${heading}`, ...parts].join('\n\n');
}

function escapeLabel(label: string): string {
  return label.replace(/[[\]\\]/g, (character) => `\\${character}`);
}

/** Why a question did not complete, in one paragraph (the server's words first, then when to ask again). */
export function unansweredText(question: Question, now = Date.now()): string {
  if (question.state === 'canceled') return question.error?.message?.trim() || l10n.t('The question was cancelled before it was answered.');
  const error = question.error;
  const parts = [error?.title?.trim(), error?.message?.trim(), error?.details?.trim() !== error?.message?.trim() ? error?.details?.trim() : undefined]
    .filter((part): part is string => Boolean(part))
    // Each a sentence: a title without a full stop would run into the message.
    .map((part) => part.slice(0, 2_000).replace(/([^.!?…:])$/, '$1.'));
  if (parts.length === 0) parts.push(l10n.t('Deep Search could not answer this question.'));
  const retryAt = Date.parse(error?.retryAt ?? '');
  if (Number.isFinite(retryAt)) {
    const minutes = Math.max(1, Math.ceil((retryAt - now) / 60_000));
    const at = new Date(retryAt).toISOString();
    if (retryAt <= now) parts.push(l10n.t('You can ask again now.'));
    else parts.push(minutes === 1 ? l10n.t('You can ask again in 1 minute (at {0}).', at) : l10n.t('You can ask again in {0} minutes (at {1}).', minutes, at));
  }
  if (error?.kind === 'TokenLimitExceeded') parts.push(l10n.t('Ask a narrower question, or start a new conversation.'));
  return parts.join(' ');
}

/** A reasoning turn as one progress line: its first line, bounded. */
export function progressLine(turn: Turn): string {
  const first = turn.reasoning.trim().split('\n', 1)[0] ?? '';
  return first.length > 160 ? `${first.slice(0, 159)}…` : first;
}
