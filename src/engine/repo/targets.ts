/**
 * Which repositories and files a parsed query can touch: repository candidates from `repo:` filters
 * (three-valued evaluation, so OR and NOT are honoured), revisions resolved per repository, and the
 * filter verdicts for a set of paths (regexes run time-bounded).
 */
import { RepositoryUnavailableError, ToolError, type ToolContext } from './context';
import type { SearchTarget } from './grep';
import { extensionOf, extensionsOf, knownLanguages } from './languages';
import { checkRevision, resolveRevision } from './paths';
import type { FilterNode, ParsedQuery, PatternNode, QueryNode } from '../search/query';
import { checkRegex, testEach, type RegexWorker } from '../search/regex';

const MAX_REPOSITORIES = 50;

/** true / false / undefined (not known yet) evaluation of a query tree. */
export function evaluateKnown(node: QueryNode | undefined, value: (leaf: PatternNode | FilterNode) => boolean | undefined): boolean | undefined {
  if (!node) return true;
  switch (node.kind) {
    case 'pattern':
    case 'filter':
      return value(node);
    case 'and': {
      const values = node.children.map((child) => evaluateKnown(child, value));
      if (values.includes(false)) return false;
      return values.every((item) => item === true) ? true : undefined;
    }
    case 'or': {
      const values = node.children.map((child) => evaluateKnown(child, value));
      if (values.includes(true)) return true;
      return values.every((item) => item === false) ? false : undefined;
    }
    case 'not': {
      const inner = evaluateKnown(node.child, value);
      return inner === undefined ? undefined : !inner;
    }
  }
}

/** Checks every filter before any work: regexes compile, languages exist. */
export function checkFilters(query: ParsedQuery): void {
  for (const filter of query.filters) {
    if (filter.field === 'lang') {
      if (!extensionsOf(filter.value))
        throw new ToolError(
          `lang:${filter.value} is not a language this tool knows: use one of ${knownLanguages().join(', ')}, or a file: filter such as file:\\.ext$.`,
        );
    } else {
      checkRegex(filter.value, 'i', `The ${filter.field}: filter`);
    }
  }
}

/** The repositories the query may match, each at the query's revision (skipping those without it). */
export async function selectTargets(context: ToolContext, query: ParsedQuery, notes: string[]): Promise<SearchTarget[]> {
  const repoFilters = query.filters.filter((filter) => filter.field === 'repo');
  const names = context.repositories.map((repo) => repo.name);
  const verdicts = new Map<number, boolean[]>();
  for (const filter of repoFilters) verdicts.set(filter.id, await testEach(context.regex, filter.value, 'i', names, 'The repo: filter'));
  const candidates = context.repositories.filter(
    (_repo, index) =>
      evaluateKnown(query.root, (leaf) => (leaf.kind === 'filter' && leaf.field === 'repo' ? verdicts.get(leaf.id)?.[index] : undefined)) !== false,
  );
  if (candidates.length === 0) {
    throw new ToolError(
      `No served repository matches the query's repo: filters: use ${context.toolName('list_repos')} to see the names (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}).`,
    );
  }
  if (candidates.length > MAX_REPOSITORIES)
    notes.push(`Only the first ${MAX_REPOSITORIES} of ${candidates.length} repositories were searched: add a repo: filter.`);
  if (query.revision !== undefined) checkRevision(query.revision, 'rev:', context.toolName);
  const targets: SearchTarget[] = [];
  const missing: string[] = [];
  const unavailable: string[] = [];
  for (const repo of candidates.slice(0, MAX_REPOSITORIES)) {
    try {
      const { revision, commit } = await resolveRevision(context, repo, query.revision, 'rev:');
      targets.push({ repo, revision, commit });
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      if (candidates.length === 1) throw error;
      (error instanceof RepositoryUnavailableError ? unavailable : missing).push(repo.name);
    }
  }
  if (unavailable.length > 0) notes.push(`Skipped (folder gone or unreadable on the engine's machine): ${unavailable.join(', ')}.`);
  if (targets.length === 0 && unavailable.length > 0 && missing.length === 0) {
    throw new ToolError(`None of the selected repositories is available: the folders of ${unavailable.join(', ')} are gone or cannot be read.`);
  }
  if (targets.length === 0) {
    throw new ToolError(
      query.revision === undefined
        ? 'None of the selected repositories has any commits yet, so there is nothing to search.'
        : `rev:${query.revision} exists in none of the selected repositories: add a repo: filter for the repository that has it, or check the name with ${context.toolName('list_files')}.`,
    );
  }
  if (missing.length > 0) {
    notes.push(
      query.revision === undefined ? `Skipped (no commits): ${missing.join(', ')}.` : `Skipped (no revision ${query.revision}): ${missing.join(', ')}.`,
    );
  }
  return targets;
}

/** For each file/lang filter, whether each of `paths` passes it; repo filters for the one repository. */
export async function filterVerdicts(
  regex: RegexWorker,
  query: ParsedQuery,
  repoName: string,
  paths: readonly string[],
): Promise<Map<number, (index: number) => boolean>> {
  const verdicts = new Map<number, (index: number) => boolean>();
  for (const filter of query.filters) {
    if (filter.field === 'repo') {
      const [passes] = await testEach(regex, filter.value, 'i', [repoName], 'The repo: filter');
      verdicts.set(filter.id, () => passes === true);
    } else if (filter.field === 'lang') {
      const extensions = extensionsOf(filter.value) ?? [];
      verdicts.set(filter.id, (index) => extensions.includes(extensionOf(paths[index] ?? '')));
    } else {
      const results = await testEach(regex, filter.value, 'i', paths, 'The file: filter');
      verdicts.set(filter.id, (index) => results[index] === true);
    }
  }
  return verdicts;
}

/**
 * Whether a file containing none of the query's patterns could still match (e.g. `file:README`
 * alone, or `NOT foo`): then every file of the tree has to be considered.
 */
export function matchesWithoutPatterns(query: ParsedQuery): boolean {
  return evaluateKnown(query.root, (leaf) => (leaf.kind === 'pattern' ? false : undefined)) !== false;
}
