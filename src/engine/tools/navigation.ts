/**
 * `sg_go_to_definition` and `sg_find_references`: search-based code navigation across every served
 * repository. Definitions are lines matching per-language definition patterns of the symbol;
 * references are whole-word matches in files of the same language, without the definitions.
 */
import type { ServedRepository } from '../git/repos';
import { chunksFromLines, makeChunk, readTargetText, renderBlocks, splitLines, type FileBlock } from '../repo/blocks';
import { integerArgument, plural, ToolError, type ToolContext, type ToolOutput } from '../repo/context';
import { grepTarget, type GrepLine, type GrepOptions, type SearchTarget } from '../repo/grep';
import { definitionEnd, escapeIdentifier, NAVIGATION_LANGUAGES, navigationLanguageOf, pathspecsOf, type NavigationLanguage } from '../repo/languages';
import { findRepository, normalizeRepoPath, resolveEntry, resolveRevision } from '../repo/paths';
import { echo } from '../http/echo';

const MAX_DEFINITIONS = 10;
const MAX_REFERENCE_FILES = 50;
const MAX_REFERENCES = 500;
const BLOB_READ_MAX = 1024 * 1024;

export interface NavigationArgs {
  repo: string;
  path: string;
  symbol: string;
  revision?: string;
}

interface Definition {
  target: SearchTarget;
  language: NavigationLanguage;
  path: string;
  line: GrepLine;
}

/** The symbol as an identifier: `Foo.bar`, `Foo::bar` and `bar()` become `bar`. */
function checkSymbol(symbol: string): string {
  const cleaned = symbol.trim().replace(/\(\s*\)$/, '');
  const last = cleaned.split(/\.|::|#|->/).pop() ?? '';
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(last) || last.length > 200) {
    throw new ToolError(
      `symbol ${echo(symbol)} is not an identifier: pass a single name such as handleSearch or MyClass (for a method, just the method name).`,
    );
  }
  return last;
}

/** Where the symbol is used or defined, checked to exist, and every repository to search from there. */
async function navigationTargets(
  context: ToolContext,
  args: NavigationArgs,
): Promise<{ origin: SearchTarget; path: string; targets: SearchTarget[]; notes: string[] }> {
  const repo = findRepository(context, args.repo);
  const path = normalizeRepoPath(args.path);
  if (path === '') throw new ToolError('path is empty: pass the file where the symbol appears, such as src/app.ts.');
  const { revision, commit } = await resolveRevision(context, repo, args.revision);
  const entry = await resolveEntry(context, repo, commit, path, revision);
  if (entry.type !== 'blob') throw new ToolError(`${path} in ${repo.name} is not a file: pass the file where the symbol appears.`);
  const origin: SearchTarget = { repo, commit, revision };
  const targets: SearchTarget[] = [origin];
  const notes: string[] = [];
  for (const other of context.repositories) {
    if (other === repo) continue;
    const head = await resolveRevision(context, other, undefined).catch(() => undefined);
    if (head) targets.push({ repo: other, ...head });
  }
  return { origin, path: entry.path, targets, notes };
}

/** Definitions of `symbol` in the given languages across the targets. */
async function findDefinitions(
  context: ToolContext,
  targets: readonly SearchTarget[],
  symbol: string,
  languages: readonly NavigationLanguage[],
): Promise<Definition[]> {
  const escaped = escapeIdentifier(symbol);
  const found: Definition[] = [];
  for (const target of targets) {
    const results = await Promise.all(
      languages.map(async (language) => ({
        language,
        result: await grepTarget(context, target, {
          patterns: language.definitions(escaped),
          syntax: 'extended',
          caseSensitive: true,
          pathspecs: pathspecsOf(language),
          linesPerFile: 20,
          what: `The definition search for ${symbol}`,
        }),
      })),
    );
    for (const { language, result } of results) {
      for (const [path, lines] of result.files) for (const line of lines) found.push({ target, language, path, line });
    }
  }
  return found;
}

function sameRepo(a: SearchTarget, b: SearchTarget): boolean {
  return a.repo === b.repo;
}

export async function goToDefinition(context: ToolContext, args: NavigationArgs): Promise<ToolOutput<{ fileBlocks: FileBlock[] }>> {
  const symbol = checkSymbol(args.symbol);
  const { origin, path, targets, notes } = await navigationTargets(context, args);
  const usageLanguage = navigationLanguageOf(path);
  const definitions = await findDefinitions(context, targets, symbol, NAVIGATION_LANGUAGES);
  const rank = (definition: Definition): number =>
    (sameRepo(definition.target, origin) ? 0 : 4) + (definition.path === path ? 0 : 2) + (definition.language === usageLanguage ? 0 : 1);
  definitions.sort(
    (a, b) => rank(a) - rank(b) || a.target.repo.name.localeCompare(b.target.repo.name) || a.path.localeCompare(b.path) || a.line.line - b.line.line,
  );
  // A definition in the usage's language wins over same-named ones elsewhere.
  const preferred =
    usageLanguage && definitions.some((definition) => definition.language === usageLanguage)
      ? definitions.filter((definition) => definition.language === usageLanguage)
      : definitions;
  const shown = preferred.slice(0, MAX_DEFINITIONS);
  if (preferred.length > shown.length) notes.push(`${preferred.length - shown.length} more definitions are not shown.`);
  const blocks: FileBlock[] = [];
  for (const definition of shown) {
    let block = blocks.find((candidate) => candidate.repo === definition.target.repo.name && candidate.file === definition.path);
    if (!block) {
      block = { type: 'file', repo: definition.target.repo.name, file: definition.path, rev: definition.target.revision, chunks: [] };
      blocks.push(block);
    }
    const blob = await readTargetText(context, definition.target, definition.path, BLOB_READ_MAX).catch(() => undefined);
    const lines = blob ? splitLines(blob.text) : [];
    const end = lines.length >= definition.line.line ? definitionEnd(lines, definition.line.line, definition.language.blocks) : definition.line.line;
    block.chunks.push(lines.length > 0 ? makeChunk(lines, definition.line.line, end, 8192) : makeChunk([definition.line.text], 1, 1));
  }
  if (blocks.length === 0) {
    const where = context.repositories.length > 1 ? `any of the ${context.repositories.length} repositories` : origin.repo.name;
    return {
      text:
        `Symbol not found: no definition of ${symbol} in ${where} (searched ` +
        `${NAVIGATION_LANGUAGES.map((language) => language.label).join(', ')}). Check the spelling, or try ${context.toolName('keyword_search')} for ` +
        `${symbol}.`,
      structured: { fileBlocks: [] },
      notes,
    };
  }
  return {
    text: `${plural(shown.length, 'definition')} of ${symbol}:\n\n${renderBlocks(blocks)}`,
    structured: { fileBlocks: blocks },
    notes,
    filesRead: blocks.map((block) => ({ repo: block.repo, path: block.file })),
  };
}

/** `find_references` of 2026 takes `limit`, the most references to return (default 10); v1 has none and gets every one up to the bound. */
export interface ReferencesArgs extends NavigationArgs {
  limit?: number;
}

/** References returned when 2026's `limit` is left out. */
export const REFERENCES_DEFAULT_2026 = 10;

export async function findReferences(
  context: ToolContext,
  args: ReferencesArgs,
  defaultLimit = MAX_REFERENCES,
): Promise<ToolOutput<{ fileBlocks: FileBlock[] }>> {
  const symbol = checkSymbol(args.symbol);
  const limit = integerArgument('limit', args.limit, defaultLimit, 1, MAX_REFERENCES);
  const { path, targets, notes } = await navigationTargets(context, args);
  const language = navigationLanguageOf(path);
  const languages = language ? [language] : NAVIGATION_LANGUAGES;
  const definitions = await findDefinitions(context, targets, symbol, languages);
  const definitionKeys = new Set(definitions.map((definition) => `${definition.target.repo.name}\0${definition.path}\0${definition.line.line}`));
  const references: Array<{ target: SearchTarget; path: string; lines: GrepLine[] }> = [];
  let total = 0;
  let truncated = false;
  const search: GrepOptions = {
    patterns: [symbol],
    syntax: 'fixed',
    caseSensitive: true,
    wholeWord: true,
    pathspecs: language ? pathspecsOf(language) : [],
    linesPerFile: 100,
    what: `The reference search for ${symbol}`,
  };
  for (const target of targets) {
    const result = await grepTarget(context, target, search);
    truncated ||= result.truncated;
    for (const [file, lines] of result.files) {
      const kept = lines.filter((line) => !definitionKeys.has(`${target.repo.name}\0${file}\0${line.line}`));
      if (kept.length > 0) references.push({ target, path: file, lines: kept });
    }
  }
  references.sort(
    (a, b) => orderOf(a.target.repo, targets) - orderOf(b.target.repo, targets) || (a.path === path ? -1 : b.path === path ? 1 : a.path.localeCompare(b.path)),
  );
  const blocks: FileBlock[] = [];
  for (const reference of references) {
    if (blocks.length === MAX_REFERENCE_FILES || total >= limit) {
      truncated = true;
      break;
    }
    const lines = reference.lines.slice(0, limit - total);
    if (lines.length < reference.lines.length) truncated = true;
    total += lines.length;
    blocks.push({ type: 'file', repo: reference.target.repo.name, file: reference.path, rev: reference.target.revision, chunks: chunksFromLines(lines, 100) });
  }
  let heading = `${plural(total, 'reference')} to ${symbol} in ${plural(blocks.length, 'file')}`;
  if (truncated) {
    // Not all are shown: how many there are, counted (not guessed from what was shown).
    const all = await countReferences(context, targets, { ...search, linesPerFile: 0 }, definitionKeys);
    heading = `${total} of ${plural(all.references, 'reference')} to ${symbol}, in ${blocks.length} of ${plural(all.files, 'file')}`;
    notes.push(
      limit < MAX_REFERENCES
        ? `Not every reference is shown: raise limit (now ${limit}, at most ${MAX_REFERENCES}) for more.`
        : `Not every reference is shown (limits: ${MAX_REFERENCE_FILES} files, ${MAX_REFERENCES} lines).`,
    );
  }
  if (definitions.length === 0) notes.push(`No definition of ${symbol} was found, so these are all whole-word occurrences.`);
  const scope = language ? `${language.label} files` : 'files';
  if (blocks.length === 0) {
    return { text: `No references to ${symbol} in ${scope} of the served repositories (other than its definition).`, structured: { fileBlocks: [] }, notes };
  }
  return { text: `${heading} (${scope}):\n\n${renderBlocks(blocks)}`, structured: { fileBlocks: blocks }, notes };
}

/** Every whole-word use of the symbol in the targets, its definitions' lines left out: exact counts. */
async function countReferences(
  context: ToolContext,
  targets: readonly SearchTarget[],
  counting: GrepOptions,
  definitionKeys: ReadonlySet<string>,
): Promise<{ references: number; files: number }> {
  const definitionsPerFile = new Map<string, number>();
  for (const key of definitionKeys) {
    const file = key.slice(0, key.lastIndexOf('\0'));
    definitionsPerFile.set(file, (definitionsPerFile.get(file) ?? 0) + 1);
  }
  let references = 0;
  let files = 0;
  for (const target of targets) {
    const { counts } = await grepTarget(context, target, counting);
    for (const [path, count] of counts.entries()) {
      const uses = Math.max(0, count - (definitionsPerFile.get(`${target.repo.name}\0${path}`) ?? 0));
      references += uses;
      if (uses > 0) files++;
    }
  }
  return { references, files };
}

function orderOf(repo: ServedRepository, targets: readonly SearchTarget[]): number {
  return targets.findIndex((target) => target.repo === repo);
}
