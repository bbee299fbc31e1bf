/**
 * What a command may take from its arguments. Every entry point passes arguments of its own: the
 * editor context menu and editor title the resource URI (and an editor group), a tree item's menus
 * the node (and the selected nodes), the palette and keybindings nothing, other extensions anything.
 * Handlers take `unknown` and read only what these functions recognise; anything else counts as
 * "not given", so the command asks the user instead of failing on a value it did not expect.
 */
import * as vscode from 'vscode';

/** A string argument (a question, a prompt, a query), or undefined for any other value. */
export function textArgument(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A conversation id: a number, or a tree node or other object naming one (`{ kind: 'conversation', id }`). */
export function conversationIdArgument(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (!isRecord(value) || value.kind !== 'conversation') return undefined;
  return conversationIdArgument(value.id);
}

/** The file URI the editor's menus pass (the document the menu was opened on), if that is what it is. */
export function uriArgument(value: unknown): vscode.Uri | undefined {
  return value instanceof vscode.Uri ? value : undefined;
}

/**
 * The string fields `keys` of an object argument (automation and tests give named values); fields of
 * other types are left out, and a non-object gives an empty object.
 */
export function textFields<K extends string>(value: unknown, keys: readonly K[]): Partial<Record<K, string>> {
  const fields: Partial<Record<K, string>> = {};
  if (!isRecord(value) || value instanceof vscode.Uri) return fields;
  for (const key of keys) {
    const field = value[key];
    if (typeof field === 'string') fields[key] = field;
  }
  return fields;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
