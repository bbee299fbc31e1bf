/**
 * A conversation as one Markdown document: every question with its answer (or what went wrong),
 * sources and stats, with instance-relative links made absolute so the file stands on its own. Its
 * words go through `@vscode/l10n`, the Markdown around them stays outside the messages where it can.
 */
import * as l10n from '@vscode/l10n';
import { citationLabel, CitationNumbers } from './citations';
import { conversationLabel } from '../model/conversationLabel';
import type { Conversation, Question } from '../model/conversation';
import { rewriteLinks } from './answerText';

export function conversationMarkdown(conversation: Conversation, instanceUrl: string): string {
  const lines: string[] = [`# ${oneLine(conversationLabel(conversation))}`, ''];
  const web = conversation.shareUrl;
  const day = new Date().toISOString().slice(0, 10);
  const exported = web
    ? l10n.t('Exported from {0} on {1} · [open on the instance]({2})', instanceUrl, day, web)
    : l10n.t('Exported from {0} on {1}', instanceUrl, day);
  lines.push(`_${exported}_`, '');
  for (const question of conversation.questions) lines.push(...questionMarkdown(question, instanceUrl));
  return `${lines.join('\n').trimEnd()}\n`;
}

function questionMarkdown(question: Question, instanceUrl: string): string[] {
  const lines = ['## ' + oneLine(question.title || question.text), ''];
  lines.push(...question.text.split('\n').map((line) => `> ${line}`), '');
  switch (question.state) {
    case 'completed':
      lines.push(absolutize(question.answer ?? '', instanceUrl).trim(), '');
      break;
    case 'failed':
      lines.push(l10n.t('**Failed:** {0}', oneLine(question.error?.message || question.error?.title || l10n.t('the question failed'))), '');
      break;
    case 'canceled':
      lines.push(l10n.t('**Cancelled** before an answer was produced.'), '');
      break;
    default:
      lines.push(`_${l10n.t('Still being answered when exported.')}_`, '');
  }
  if (question.sources.length > 0) {
    lines.push(sourcesHeading(), '');
    for (const source of question.sources) {
      lines.push(`- [${escapeLinkText(source.label)}](${absolutize(source.link, instanceUrl)})`);
    }
    lines.push('');
  }
  return lines;
}

/**
 * One answer as a Markdown document of its own, for reading in an editor (where VS Code's screen
 * reader support and Accessible View apply): the question, the answer with absolute links, its
 * citations numbered as the panel numbers them, and its sources.
 */
export function answerMarkdown(question: Question, instanceUrl: string): string {
  const lines = questionMarkdown(question, instanceUrl);
  const numbers = new CitationNumbers(instanceUrl);
  rewriteLinks(question.answer ?? '', (href) => {
    numbers.add(href);
    return undefined;
  });
  if (numbers.list.length > 0) {
    const sourcesAt = lines.indexOf(sourcesHeading());
    const citations = [`**${l10n.t('Citations:')}**`, ''];
    for (const citation of numbers.list) {
      const link = `[${escapeLinkText(citationLabel(citation))}](${absolutize(citation.href, instanceUrl)})`;
      citations.push(`${citation.number}. ${l10n.t('{0} in {1}', link, citation.repoName)}`);
    }
    citations.push('');
    lines.splice(sourcesAt < 0 ? lines.length : sourcesAt, 0, ...citations);
  }
  lines[0] = `# ${oneLine(question.title || question.text)}`;
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Markdown links and bare paths relative to the instance root become absolute URLs. */
function absolutize(text: string, instanceUrl: string): string {
  if (/^\/[^/]/.test(text) && !/\s/.test(text)) return `${instanceUrl}${text}`;
  return rewriteLinks(text, (href) => (/^\/[^/]/.test(href) ? `${instanceUrl}${href}` : undefined));
}

function sourcesHeading(): string {
  return `**${l10n.t('Sources:')}**`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function escapeLinkText(text: string): string {
  return text.replace(/[[\]]/g, '\\$&');
}
