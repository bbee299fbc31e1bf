/**
 * A quick pick whose items come from the tool server as the user types: each change waits a moment,
 * cancels the request before it, shows a busy bar, and puts an error in the list instead of losing
 * what was typed. One place for the behaviour every tool picker shares.
 */
import * as vscode from 'vscode';
import { errorMessage, isDeepSearchError } from '../../api/errors';
import { isToolServerMissing } from '../../api/tools/toolServer';

export interface LivePickOptions<T extends vscode.QuickPickItem> {
  title: string;
  placeholder: string;
  value?: string;
  /** Items for a value; an empty value may answer [] (then `emptyMessage` shows). */
  load(value: string, signal: AbortSignal): Promise<T[]>;
  /** Shown as the only item when a value finds nothing. */
  emptyMessage(value: string): string;
  /** Milliseconds to wait after a keystroke. Default 250. */
  delayMs?: number;
  /** Also load for the empty value (e.g. a list of repositories). Default false. */
  loadEmpty?: boolean;
  buttons?: readonly vscode.QuickInputButton[];
  onButton?(button: vscode.QuickInputButton, pick: vscode.QuickPick<T | vscode.QuickPickItem>, reload: () => void): void;
}

/** Resolves with the accepted item, or undefined when the user closed the pick (or it failed for good). */
export function livePick<T extends vscode.QuickPickItem>(options: LivePickOptions<T>, report: (error: unknown) => void): Promise<T | undefined> {
  const pick = vscode.window.createQuickPick<T | vscode.QuickPickItem>();
  pick.title = options.title;
  pick.placeholder = options.placeholder;
  pick.matchOnDescription = true;
  pick.buttons = options.buttons ?? [];
  let timer: NodeJS.Timeout | undefined;
  let running: AbortController | undefined;
  let loaded = new Set<vscode.QuickPickItem>();

  const load = (): void => {
    clearTimeout(timer);
    running?.abort();
    const value = pick.value.trim();
    if (!value && !options.loadEmpty) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    const controller = new AbortController();
    running = controller;
    pick.busy = true;
    timer = setTimeout(() => {
      options.load(value, controller.signal).then(
        (items) => {
          if (controller.signal.aborted) return;
          // The server chose these: the pick must not filter them again by the typed text.
          for (const item of items) item.alwaysShow = true;
          loaded = new Set(items);
          pick.items = items.length ? items : [message(options.emptyMessage(value))];
          pick.busy = false;
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          pick.busy = false;
          if (isToolServerMissing(error)) {
            pick.hide();
            report(error);
            return;
          }
          const text = isDeepSearchError(error) || errorMessage(error);
          loaded = new Set();
          pick.items = [message(`$(error) ${text}`)];
        },
      );
    }, options.delayMs ?? 250);
  };

  return new Promise<T | undefined>((resolve) => {
    let chosen: T | undefined;
    pick.onDidChangeValue(load);
    pick.onDidTriggerButton((button) => options.onButton?.(button, pick, load));
    pick.onDidAccept(() => {
      const [item] = pick.activeItems;
      if (!item || !loaded.has(item)) return;
      chosen = item as T;
      pick.hide();
    });
    pick.onDidHide(() => {
      clearTimeout(timer);
      running?.abort();
      pick.dispose();
      resolve(chosen);
    });
    pick.value = options.value ?? '';
    pick.show();
    if (pick.value || options.loadEmpty) load();
  });
}

function message(label: string): vscode.QuickPickItem {
  return { label, alwaysShow: true };
}
