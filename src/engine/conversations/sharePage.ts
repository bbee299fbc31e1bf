/**
 * The page behind a conversation's `share_url`: a plain, script-free HTML rendering in which every
 * server string is escaped (answers are shown as their Markdown source).
 */
import type { WireConversation } from '../../contract/legacyWire';
import { escapeHtml } from '../html';

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
