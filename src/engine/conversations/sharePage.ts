/**
 * The page behind a conversation's `share_url`: a plain, script-free HTML rendering in which every
 * server string is escaped (answers are shown as their Markdown source).
 */
import type { WireConversation } from '../../contract/legacyWire';
import { escapeHtml } from '../http/html';

/** Served with the page: nothing may load or run. */
export const SHARE_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

export function renderSharePage(conversation: WireConversation): string {
  const first = conversation.questions[0];
  const title = first?.title ?? first?.question ?? `Conversation ${conversation.id}`;
  const questions = conversation.questions.map((question) => {
    const status = question.error ? `${question.status}: ${question.error.message ?? question.error.kind ?? ''}` : question.status;
    const answer = question.answer === undefined ? '' : `<pre class="answer">${escapeHtml(question.answer)}</pre>`;
    return [
      '<section>',
      `<h2>${escapeHtml(question.title ?? question.question)}</h2>`,
      `<p class="question">${escapeHtml(question.question)}</p>`,
      `<p class="status">Status: ${escapeHtml(status)}</p>`,
      answer,
      '</section>',
    ].join('\n');
  });
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeHtml(title)} · Deep Search</title>`,
    '<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{white-space:pre-wrap}</style>',
    '</head>',
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    ...questions,
    '</body>',
    '</html>',
  ].join('\n');
}

/** Longest question the new-question page shows (a URL carries it). */
const MAX_PREFILLED_QUESTION = 8_000;

/**
 * The page at `/deepsearch?q=<question>` where an instance starts a new question with its text
 * filled in ("Continue in browser"). The engine has no web client to ask from: its page holds the
 * question, ready to copy, and says where to ask it.
 */
export function renderNewQuestionPage(question: string): string {
  const text = question.slice(0, MAX_PREFILLED_QUESTION);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<title>New question · Deep Search</title>',
    '<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}textarea{width:100%;min-height:8rem;font:inherit}</style>',
    '</head>',
    '<body>',
    '<h1>New question</h1>',
    '<label for="question">Your question</label>',
    `<textarea id="question" readonly>${escapeHtml(text)}</textarea>`,
    '<p>The local engine answers through its API only: ask this question from VS Code ("Deep Search: Ask Deep Search") or any client of the Deep Search API.</p>',
    '</body>',
    '</html>',
  ].join('\n');
}
