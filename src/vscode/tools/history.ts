/**
 * History from the editor: "Search Commits…", "Search Diffs…", "Compare Revisions…" and "Find a
 * Contributor's Repositories…". Commits and comparisons open in VS Code's diff editors on remote
 * documents (one file: the diff editor; several: the multi-file diff editor).
 */
import * as vscode from 'vscode';
import { isDeepSearchError } from '../../api/errors';
import type { CodeTools } from '../../api/tools/codeTools';
import { parseHistoryQuery, type HistoryQuery } from '../../api/tools/historyQuery';
import { hunkLocation, type ChangedFile, type CommitMatch, type DiffMatch, type RevisionComparison } from '../../api/tools/toolResults';
import type { WorkspaceRepositories } from '../workspace/workspaceRepositories';
import { pickRepository } from './remoteBrowser';
import { remoteUri } from './remoteFiles';
import type { ToolAccess } from './toolAccess';

/** git's empty tree: the "before" of a repository's first commit. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const FILES_PER_PAGE = 50;

export class HistoryCommands {
  constructor(
    private readonly access: ToolAccess,
    private readonly repositories: WorkspaceRepositories,
  ) {}

  async searchCommits(input?: string): Promise<CommitMatch[] | undefined> {
    const text =
      input ??
      (await askQuery(
        vscode.l10n.t('Search Commits'),
        vscode.l10n.t('Message words, or author:, file:, content:, after:, before:, repo: filters — e.g. fix retry author:alan after:"1 month ago"'),
      ));
    if (!text) return undefined;
    const query = parseHistoryQuery(text);
    const repos = await this.reposFor(query);
    if (!repos) return undefined;
    const found = await this.access.run(vscode.l10n.t('Searching commits…'), (tools, signal) =>
      tools.searchCommits(
        {
          repos,
          messageTerms: query.terms,
          authors: query.authors,
          contentTerms: query.contentTerms,
          files: query.files,
          after: query.after,
          before: query.before,
          count: query.count,
          useRegex: query.useRegex,
        },
        signal,
      ),
    );
    if (!found) return undefined;
    if (found.commits.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No commits match {0} in {1}.', text, repos.join(', ')));
      return found.commits;
    }
    const commit = await pickCommit(found.commits, found.limitHit, vscode.l10n.t('Commits matching {0}', text));
    if (commit) await this.showCommit(commit.repository, commit.commit, commit.title);
    return found.commits;
  }

  async searchDiffs(input?: string): Promise<DiffMatch[] | undefined> {
    const text =
      input ??
      (await askQuery(
        vscode.l10n.t('Search Diffs'),
        vscode.l10n.t('Code that changes, e.g. logger.info is:added author:ada after:2024-01-01 repo:… (/regex/ allowed)'),
      ));
    if (!text) return undefined;
    const query = parseHistoryQuery(text);
    if (query.terms.length === 0) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Give the code to look for in the changes, besides the filters.'));
      return undefined;
    }
    const repos = await this.reposFor(query);
    if (!repos) return undefined;
    // Several terms: any of them, as one regular expression.
    const useRegex = query.useRegex || query.terms.length > 1;
    const pattern = query.terms.length > 1 ? query.terms.map((term) => (query.useRegex ? `(${term})` : escapeRegex(term))).join('|') : query.terms[0];
    const found = await this.access.run(vscode.l10n.t('Searching diffs…'), (tools, signal) =>
      tools.searchDiffs(
        {
          repos,
          pattern,
          useRegex,
          added: query.added,
          removed: query.removed,
          authors: query.authors,
          after: query.after,
          before: query.before,
          count: query.count,
        },
        signal,
      ),
    );
    if (!found) return undefined;
    if (found.diffs.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No changes match {0} in {1}.', text, repos.join(', ')));
      return found.diffs;
    }
    const items = found.diffs.map((diff) => {
      const where = hunkLocation(diff.hunk);
      const changed = diff.hunk.split('\n').find((line) => /^[+-](?![+-]{2} )/.test(line) && line.toLowerCase().includes((query.terms[0] ?? '').toLowerCase()));
      return {
        label: `$(diff) ${where.path ?? diff.repository}`,
        description: `${diff.repository}@${diff.commit.slice(0, 10)}${diff.author ? ` · ${diff.author}` : ''}`,
        detail: `${changed?.trim() ?? ''}${diff.message ? `  — ${diff.message.split('\n')[0]}` : ''}`,
        diff,
        where,
      };
    });
    const chosen = await vscode.window.showQuickPick(items, {
      title: found.limitHit ? vscode.l10n.t('Changes matching {0} (the first {1})', text, found.diffs.length) : vscode.l10n.t('Changes matching {0}', text),
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!chosen) return found.diffs;
    const { diff, where } = chosen;
    if (where.path) {
      await openFileDiff(diff.repository, `${diff.commit}~1`, diff.commit, where.path, where.line);
    } else {
      const document = await vscode.workspace.openTextDocument({ content: diff.hunk, language: 'diff' });
      await vscode.window.showTextDocument(document, { preview: true });
    }
    return found.diffs;
  }

  async compareRevisions(given: { repo?: string; base?: string; head?: string } = {}): Promise<RevisionComparison | undefined> {
    const repo = given.repo ?? (await pickRepository(this.access, vscode.l10n.t('Compare Revisions: Repository')));
    if (!repo) return undefined;
    const base =
      given.base ??
      (await vscode.window.showInputBox({
        title: vscode.l10n.t('Compare Revisions in {0}', repo),
        prompt: vscode.l10n.t('Base (older) revision: a branch, tag or commit'),
        placeHolder: 'v1.0, main~10, 1a2b3c4',
        ignoreFocusOut: true,
      }));
    if (!base?.trim()) return undefined;
    const head =
      given.head ??
      (await vscode.window.showInputBox({
        title: vscode.l10n.t('Compare Revisions in {0}', repo),
        prompt: vscode.l10n.t('Head (newer) revision'),
        value: 'HEAD',
        ignoreFocusOut: true,
      }));
    if (!head?.trim()) return undefined;
    return this.showComparison(repo, base.trim(), head.trim(), vscode.l10n.t('{0}: {1} ↔ {2}', repo, base.trim(), head.trim()));
  }

  async contributorRepositories(author?: string): Promise<void> {
    const who =
      author ??
      (await vscode.window.showInputBox({
        title: vscode.l10n.t("Find a Contributor's Repositories"),
        prompt: vscode.l10n.t('Name or e-mail address of the author, or part of it'),
        ignoreFocusOut: true,
      }));
    if (!who?.trim()) return;
    const repositories = await this.access.run(vscode.l10n.t('Finding the repositories of {0}…', who), (tools, signal) =>
      tools.contributorRepositories(who.trim(), { limit: 50 }, signal),
    );
    if (!repositories) return;
    if (repositories.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No repository has commits by {0}.', who));
      return;
    }
    const chosen = await vscode.window.showQuickPick(
      repositories.map((repository) => ({
        label: `$(repo) ${repository.name}`,
        description: vscode.l10n.t('{0} commits', repository.commitCount),
        detail: repository.lastCommitDate ? vscode.l10n.t('Last commit {0}', repository.lastCommitDate.slice(0, 10)) : undefined,
        repository,
      })),
      { title: vscode.l10n.t('Repositories {0} committed to — pick one to see the commits', who), matchOnDescription: true },
    );
    if (chosen) await this.searchCommits(`author:"${who.trim().replace(/"/g, '')}" repo:${chosen.repository.name}`);
  }

  /** A commit's changes: against its parent (or the empty tree for a first commit). */
  async showCommit(repo: string, commit: string, title: string): Promise<void> {
    await this.showComparison(repo, `${commit}~1`, commit, `${commit.slice(0, 10)} ${title}`, EMPTY_TREE);
  }

  private async showComparison(repo: string, base: string, head: string, title: string, fallbackBase?: string): Promise<RevisionComparison | undefined> {
    const compare = async (tools: CodeTools, signal: AbortSignal): Promise<{ comparison: RevisionComparison; base: string }> => {
      try {
        return { comparison: await tools.compareRevisions(repo, base, head, { first: FILES_PER_PAGE }, signal), base };
      } catch (error) {
        if (!fallbackBase || !isDeepSearchError(error) || error.kind !== 'badRequest') throw error;
        return { comparison: await tools.compareRevisions(repo, fallbackBase, head, { first: FILES_PER_PAGE }, signal), base: fallbackBase };
      }
    };
    const result = await this.access.run(vscode.l10n.t('Comparing {0} with {1}…', base, head), compare);
    if (!result) return undefined;
    const { comparison } = result;
    const files = [...comparison.files];
    let { hasNextPage, endCursor } = comparison;
    // Every page: the multi-file diff editor shows them all at once.
    while (hasNextPage && endCursor && files.length < 1000) {
      const cursor = endCursor;
      const page = await this.access.run(vscode.l10n.t('Comparing {0} with {1}…', base, head), (tools, signal) =>
        tools.compareRevisions(repo, result.base, head, { first: FILES_PER_PAGE, after: cursor }, signal),
      );
      if (!page) break;
      files.push(...page.files);
      ({ hasNextPage, endCursor } = page);
    }
    if (files.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} and {1} have the same files in {2}.', base, head, repo));
    } else if (files.length === 1) {
      await openFileDiff(repo, result.base, head, files[0].path);
    } else {
      await vscode.commands.executeCommand(
        'vscode.changes',
        `${title} (+${comparison.totalAdded} −${comparison.totalDeleted})`,
        files.map((file) => changeOf(repo, result.base, head, file)),
      );
    }
    return { ...comparison, files };
  }

  /** The repositories a history search covers: its repo: filters, else the workspace's, else chosen. */
  private async reposFor(query: HistoryQuery): Promise<string[] | undefined> {
    if (query.repos.length) return query.repos;
    const local = await this.repositories.names();
    if (local.length) return local;
    const picked = await pickRepository(this.access, vscode.l10n.t('Which repository? (or add repo:NAME to the query)'));
    return picked ? [picked] : undefined;
  }
}

async function askQuery(title: string, prompt: string): Promise<string | undefined> {
  const text = await vscode.window.showInputBox({ title, prompt, ignoreFocusOut: true });
  return text?.trim() || undefined;
}

async function pickCommit(commits: CommitMatch[], limitHit: boolean, title: string): Promise<CommitMatch | undefined> {
  const chosen = await vscode.window.showQuickPick(
    commits.map((commit) => ({
      label: `$(git-commit) ${commit.title}`,
      description: `${commit.author} · ${commit.date.slice(0, 10)}`,
      detail: `${commit.repository}@${commit.commit.slice(0, 10)}`,
      commit,
    })),
    { title: limitHit ? `${title} (${vscode.l10n.t('the first {0}', commits.length)})` : title, matchOnDescription: true, matchOnDetail: true },
  );
  return chosen?.commit;
}

function changeOf(repo: string, base: string, head: string, file: ChangedFile): [vscode.Uri, vscode.Uri, vscode.Uri] {
  const after = remoteUri({ repo, revision: head, path: file.path }, { orEmpty: true });
  return [after, remoteUri({ repo, revision: base, path: file.path }, { orEmpty: true }), after];
}

async function openFileDiff(repo: string, base: string, head: string, path: string, line?: number): Promise<void> {
  const [, left, right] = changeOf(repo, base, head, { path, added: 0, deleted: 0 });
  const name = path.slice(path.lastIndexOf('/') + 1);
  const selection = line ? new vscode.Range(line - 1, 0, line - 1, 0) : undefined;
  await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (${shortRevision(base)} ↔ ${shortRevision(head)})`, { preview: true, selection });
}

function shortRevision(revision: string): string {
  return /^[0-9a-f]{40,64}(~1)?$/.test(revision) ? revision.slice(0, 10) + (revision.endsWith('~1') ? '~1' : '') : revision;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
