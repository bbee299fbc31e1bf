/** l10n/bundle.l10n.json, absolute. */
export declare const BUNDLE_PATH: string;
/** The TypeScript files of src whose messages the bundle holds (src/engine aside), sorted. */
export declare function translatedSources(root?: string): string[];
/** Each message of `l10n.t` / `vscode.l10n.t` with its `file:line`s, and the calls whose message is not a literal. */
export declare function extractMessages(files: readonly string[], root?: string): { messages: Map<string, string[]>; nonLiteral: string[] };
/** The bundle file's text for these messages. */
export declare function bundleText(messages: ReadonlyMap<string, unknown>): string;
