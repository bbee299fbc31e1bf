/**
 * The question "Ask Deep Search About Selection" sends: the user's prompt, then where the code is
 * (repository, path, lines) and the code itself in a fenced block with its language. Large
 * selections are cut, with a note saying so, so a question never carries a whole file by accident.
 * The words around the code go through `@vscode/l10n`: the question is asked in the user's language.
 */
import * as l10n from '@vscode/l10n';
import { markdownFence } from '../contract/markdownFence';

/** Longest selection sent, in characters; documented in README. */
export const MAX_SELECTION_CHARACTERS = 12_000;

/** A piece of code and where it is. */
export interface CodeExcerpt {
  code: string;
  /** VS Code language id, e.g. `typescript`. */
  languageId: string;
  /** Path relative to the repository root (or workspace folder), with `/` separators. */
  relativePath: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** e.g. `github.com/org/repo`; absent outside a git repository. */
  repoName?: string;
}

export interface SelectionContext extends CodeExcerpt {
  /** What the user typed; may be empty. */
  prompt: string;
}

/** What is asked when the user typed nothing (a function: worded after the translations are configured). */
export function defaultSelectionPrompt(): string {
  return l10n.t('Explain this code: what it does, how it is used, and anything surprising about it.');
}

export function selectionQuestion(context: SelectionContext, maxCharacters = MAX_SELECTION_CHARACTERS): string {
  return questionWithCode(context.prompt, [context], maxCharacters);
}

/** The prompt, then each excerpt (the characters shared between them, each cut with a note). */
export function questionWithCode(prompt: string, excerpts: readonly CodeExcerpt[], maxCharacters = MAX_SELECTION_CHARACTERS): string {
  const share = Math.floor(maxCharacters / Math.max(1, excerpts.length));
  return [prompt.trim() || defaultSelectionPrompt(), ...excerpts.map((excerpt) => excerptBlock(excerpt, share))].join('\n\n');
}

function excerptBlock(context: CodeExcerpt, maxCharacters: number): string {
  const { code, cutAtLine } = cutCode(context.code, maxCharacters);
  const lastLine = cutAtLine === undefined ? context.endLine : context.startLine + cutAtLine - 1;
  const fence = markdownFence(code);
  const parts = [codeFrom(context), '', `${fence}${context.languageId}`, code, fence];
  if (cutAtLine !== undefined) {
    parts.push(
      '',
      l10n.t(
        '(Selection cut to {0}-{1} of {2}-{3}: only the first {4} characters are sent.)',
        context.startLine,
        lastLine,
        context.startLine,
        context.endLine,
        maxCharacters.toLocaleString('en-US'),
      ),
    );
  }
  return parts.join('\n');
}

/** The line that says where the code is from: one message for each shape, so a translation need not assemble one. */
function codeFrom({ relativePath, startLine, endLine, repoName }: CodeExcerpt): string {
  if (startLine === endLine) {
    return repoName
      ? l10n.t('Code from `{0}` (line {1}) in the repository `{2}`:', relativePath, startLine, repoName)
      : l10n.t('Code from `{0}` (line {1}):', relativePath, startLine);
  }
  return repoName
    ? l10n.t('Code from `{0}` (lines {1}-{2}) in the repository `{3}`:', relativePath, startLine, endLine, repoName)
    : l10n.t('Code from `{0}` (lines {1}-{2}):', relativePath, startLine, endLine);
}

/** Cuts at a line boundary within the limit; `cutAtLine` is how many lines were kept, when cut. */
function cutCode(code: string, maxCharacters: number): { code: string; cutAtLine?: number } {
  const trimmed = code.replace(/\s+$/, '');
  if (trimmed.length <= maxCharacters) return { code: trimmed };
  const head = trimmed.slice(0, maxCharacters);
  const lastNewline = head.lastIndexOf('\n');
  const kept = lastNewline > 0 ? head.slice(0, lastNewline) : head;
  return { code: kept, cutAtLine: kept.split('\n').length };
}
