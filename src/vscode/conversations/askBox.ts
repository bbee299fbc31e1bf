/**
 * The Ask box: a question, with `@` mentions of repositories and files completed as you type. After
 * an `@`, it offers the workspace's repositories, the instance's (through the tool server's
 * repository search, asked a moment after the typing stops) and the workspace's files; picking one
 * writes it as `@<name> ` and the box stays open. Enter with nothing offered asks the question.
 *
 * A mention is text of the question, as the instance's page writes it (its API has no scope
 * field): the instance's agent reads it, and the local engine searches only what mentions name.
 */
import * as vscode from 'vscode';
import { errorMessage } from '../../api/errors';

/** Where mentions come from; each may fail or be slow without holding up the others. */
export interface MentionSources {
  workspaceRepositories(): Promise<string[]>;
  /** The instance's repositories matching `query`; [] when it has no tool server. */
  instanceRepositories(query: string, signal: AbortSignal): Promise<string[]>;
  /** Files of the workspace whose path contains `query`, relative to their repository or folder. */
  workspaceFiles(query: string, signal: AbortSignal): Promise<string[]>;
}

interface MentionItem extends vscode.QuickPickItem {
  mention: string;
}

/** The mention being typed at the end of the question: `@` at a word's start, then a name so far. */
const TYPING_MENTION = /(?:^|\s)@([\w.\-/]{0,200})$/;
const INSTANCE_SEARCH_DELAY_MS = 250;
const MAX_OFFERED = 8;

export interface AskBoxOptions {
  title: string;
  placeholder: string;
  value: string;
  sources: MentionSources;
}

/** The question asked, or undefined when the box was closed. */
export function showAskBox(options: AskBoxOptions): Promise<string | undefined> {
  return new Promise((resolve) => {
    const box = vscode.window.createQuickPick<MentionItem>();
    box.title = options.title;
    box.placeholder = options.placeholder;
    box.value = options.value;
    box.ignoreFocusOut = true;
    let settled = false;
    let searching: AbortController | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const offer = (partial: string | undefined): void => {
      searching?.abort();
      clearTimeout(timer);
      if (partial === undefined) {
        box.items = [];
        box.busy = false;
        return;
      }
      const search = new AbortController();
      searching = search;
      const lower = partial.toLowerCase();
      const shown = new Map<string, MentionItem>();
      const show = (names: string[], description: string, icon: string) => {
        if (search.signal.aborted) return;
        for (const name of names) {
          if (shown.size >= MAX_OFFERED * 3 || shown.has(name) || !name.toLowerCase().includes(lower)) continue;
          // Completions of the mention, not matches of the whole question: never filtered out by it.
          shown.set(name, { label: `$(${icon}) @${name}`, description, mention: name, alwaysShow: true });
        }
        box.items = [...shown.values()];
      };
      box.busy = true;
      const local = Promise.all([
        options.sources.workspaceRepositories().then((names) => show(names.slice(0, 50), vscode.l10n.t('repository in the workspace'), 'repo')),
        options.sources.workspaceFiles(partial, search.signal).then((paths) => show(paths.slice(0, MAX_OFFERED), vscode.l10n.t('file'), 'file')),
      ]).catch(() => undefined);
      timer = setTimeout(() => {
        void options.sources
          .instanceRepositories(partial, search.signal)
          .then((names) => show(names.slice(0, MAX_OFFERED), vscode.l10n.t('repository on the instance'), 'cloud'))
          .catch((error: unknown) => {
            if (!search.signal.aborted) box.placeholder = vscode.l10n.t('Could not search the instance for repositories: {0}', errorMessage(error));
          })
          .finally(() => void local.then(() => !search.signal.aborted && (box.busy = false)));
      }, INSTANCE_SEARCH_DELAY_MS);
    };

    const finish = (question: string | undefined): void => {
      if (settled) return;
      settled = true;
      searching?.abort();
      clearTimeout(timer);
      resolve(question);
      box.dispose();
    };

    box.onDidChangeValue((value) => offer(TYPING_MENTION.exec(value)?.[1]));
    box.onDidAccept(() => {
      const picked = box.activeItems[0];
      const typing = TYPING_MENTION.exec(box.value);
      if (picked && typing && box.items.length > 0) {
        box.value = `${box.value.slice(0, box.value.length - typing[1].length - 1)}@${picked.mention} `;
        offer(undefined);
        return;
      }
      if (!box.value.trim()) {
        box.placeholder = vscode.l10n.t('Type a question to ask.');
        return;
      }
      finish(box.value.trim());
    });
    box.onDidHide(() => finish(undefined));
    box.show();
    offer(TYPING_MENTION.exec(box.value)?.[1]);
  });
}
