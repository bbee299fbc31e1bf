/**
 * The facts of the question set checked against the installed projects before anything is asked:
 * every answering file exists, its line range is inside it, and the snippet is on one of those
 * lines. Also which answering lines count as quoted when an answer's code block holds them.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AnswerSite, BenchQuestion } from './questions';

const run = promisify(execFile);

export interface RepoFile {
  /** `/`-separated, relative to the repository. */
  path: string;
  text: string;
}

/** The committed text files of the repository at `dir` (files with a NUL byte are left out). */
export async function readRepoFiles(dir: string): Promise<RepoFile[]> {
  const listed = (await run('git', ['ls-files', '-z'], { cwd: dir, maxBuffer: 64 * 2 ** 20 })).stdout.split('\0').filter(Boolean);
  const files: RepoFile[] = [];
  for (const file of listed.sort()) {
    const text = await readFile(path.join(dir, file), 'utf8');
    if (!text.includes('\0')) files.push({ path: file, text });
  }
  return files;
}

/** A checked answer site with the trimmed texts of its lines that count as quoting it. */
export interface CheckedSite extends AnswerSite {
  quotable: string[];
}

/**
 * Checks every site of `questions` against `files`; returns the problems found (none when the
 * facts hold) and, per question, its sites with their quotable lines: the snippet's line, and each
 * other line of the range that is distinctive (at least 8 characters with a letter, and on at most
 * two lines of the whole project, so that `return nil` or `}` quoted from anywhere does not count).
 */
export function checkFacts(files: readonly RepoFile[], questions: readonly BenchQuestion[]): { problems: string[]; sites: Map<BenchQuestion, CheckedSite[]> } {
  const byPath = new Map(files.map((file) => [file.path, file.text.split(/\r?\n/)]));
  const occurrences = new Map<string, number>();
  for (const lines of byPath.values()) {
    for (const line of lines) {
      const trimmed = line.trim();
      if (trimmed !== '') occurrences.set(trimmed, (occurrences.get(trimmed) ?? 0) + 1);
    }
  }
  const problems: string[] = [];
  const sites = new Map<BenchQuestion, CheckedSite[]>();
  for (const question of questions) {
    const checked: CheckedSite[] = [];
    for (const site of question.answers) {
      const where = `"${question.question}" → ${site.path}:${site.lines[0]}-${site.lines[1]}`;
      const lines = byPath.get(site.path);
      const [start, end] = site.lines;
      if (!lines) {
        problems.push(`${where}: no such file`);
        continue;
      }
      if (start < 1 || end < start || end > lines.length) {
        problems.push(`${where}: the file has ${lines.length} lines`);
        continue;
      }
      const range = lines.slice(start - 1, end).map((line) => line.trim());
      const keyLine = range.find((line) => line.includes(site.text.trim()));
      if (keyLine === undefined) {
        problems.push(`${where}: no line holds ${JSON.stringify(site.text)}`);
        continue;
      }
      const distinctive = range.filter((line) => line.length >= 8 && /[A-Za-z]/.test(line) && (occurrences.get(line) ?? 0) <= 2);
      checked.push({ ...site, quotable: [...new Set([keyLine, ...distinctive])] });
    }
    sites.set(question, checked);
  }
  return { problems, sites };
}
