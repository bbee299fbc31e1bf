/**
 * What the search tests share: the files they commit (identifiers in several spellings, a Python
 * helper, more matching lines than a file keeps, long lines that fill a small output cap, bytes git
 * treats specially), the grep cases every way of answering must get right over them, a tool
 * context over one repository, and its HEAD.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { ToolContext } from '../../../../src/engine/repo/context';
import { toolNamer } from '../../../../src/engine/messages/toolNames';
import assert from 'node:assert/strict';
import type { GrepOptions, GrepResult } from '../../../../src/engine/repo/grep';
import type { SearchIndexes } from '../../../../src/engine/search/searchIndex';
import { RepoCaches } from '../../../../src/engine/repo/repoCaches';
import { RegexWorker } from '../../../../src/engine/search/regex';
import { ProcessLauncher } from '../../../../src/engine/git/processLauncher';
import type { TestRepo } from '../../../support/gitRepos';

export const APP_TS = [
  "import { readFileSync } from 'node:fs';",
  '',
  'export function parseConfig(text: string): Config {',
  '  return JSON.parse(text) as Config; // parseConfig parses; ParseConfig and PARSECONFIG are other spellings',
  '}',
  '',
  'export const parseConfigFile = (file: string) => parseConfig(readFileSync(file, "utf8"));',
  'const my_parseConfig = parseConfig;',
  'export class Config { port = 8080 }',
  'parseConfig',
  '',
].join('\n');

export const RETRY_PY =
  'import time\n\n\ndef retry_with_backoff(action, retries=3):\n    for attempt in range(retries):\n        return action()\n\nMAX_RETRIES = 5\n';

/** 300 matching lines: over the default 200 kept per file. */
export const MANY_ROWS = Array.from({ length: 300 }, (_, index) => `row ${index + 1} of the table`).join('\n') + '\n';

/** Lines of 500 characters: a few of them fill a small output cap. */
export const LONG_LINES = Array.from({ length: 40 }, (_, index) => `long ${index} ${'z'.repeat(490)}`).join('\n') + '\n';

/** JavaScript with functions spelled several ways; `comment` is its one comment line. */
export function utilJs(comment: string): string {
  return [
    'function readFileSync(path) { return path; }',
    'export function fooSync(a, b) {',
    '  return a+b;',
    '}',
    'async function barSync (x) {}',
    'const alpha = 1',
    '  + beta;',
    'alpha beta',
    comment,
    'beta',
    '',
  ].join('\n');
}

/** The files the index's and ripgrep's suites both commit, with what git grep treats specially. */
export function sharedFiles(title: string, utilComment: string): Record<string, string> {
  return {
    // CRLF, committed as is: `$` must not match before the carriage return.
    'docs/README.md': `# ${title}\r\nparseConfig reads the settings.\r\nend\r\n`,
    'src/app.ts': APP_TS,
    'src/util.js': utilJs(utilComment),
    'lib/retry.py': RETRY_PY,
    'data/rows.txt': MANY_ROWS,
    'data/long.txt': LONG_LINES,
    'data/no-final-newline.txt': 'first needle\nlast needle',
    'data/empty.txt': '',
    'vendor/lock.json': '{ "needle": "hidden by the -diff attribute" }\n',
    '.gitattributes': 'vendor/lock.json -diff\n',
  };
}

/** Writes (uncommitted) the files of bytes both suites search: binary, a late NUL, Latin-1. */
export async function writeByteFiles(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'assets'), { recursive: true });
  await writeFile(
    path.join(dir, 'assets', 'logo.png'),
    Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from(' needle parseConfig\n')]),
  );
  // A NUL only after the first 8000 bytes: git -I still takes the file as text.
  await writeFile(
    path.join(dir, 'data', 'late-nul.txt'),
    Buffer.concat([Buffer.from(`${'x'.repeat(99)}\n`.repeat(81)), Buffer.from([0]), Buffer.from('\nneedle after the NUL\n')]),
  );
  // "café naïve needle" in Latin-1: not UTF-8.
  await writeFile(
    path.join(dir, 'docs', 'latin1.txt'),
    Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x61, 0xef, 0x76, 0x65, 0x20, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x0a]),
  );
}

/** grep options for a test: case-sensitive unless `more` says otherwise. */
export const grep = (patterns: string[], syntax: GrepOptions['syntax'], more: Partial<GrepOptions> = {}): GrepOptions => ({
  patterns,
  syntax,
  caseSensitive: true,
  what: `The pattern ${JSON.stringify(patterns)}`,
  ...more,
});

/**
 * Cases over the shared files (sharedFiles): the lines kept and counted, and git's output cap,
 * which every way of answering (index, filter, ripgrep) must match exactly.
 */
export const CAP_CASES: Array<[string, GrepOptions, (result: GrepResult) => void]> = [
  [
    'the lines kept per file',
    grep(['row'], 'fixed'),
    (result) => {
      assert.equal(result.files.get('data/rows.txt')?.length, 200);
      assert.equal(result.counts.get('data/rows.txt'), 300);
    },
  ],
  [
    'counts only: no lines kept',
    grep(['e'], 'fixed', { linesPerFile: 0 }),
    (result) => {
      assert.equal(result.files.size, 0);
      assert.ok((result.counts.get('src/app.ts') ?? 0) > 0);
    },
  ],
  [
    'counts only: exact, where lines would pass the output cap',
    grep(['long', 'e'], 'fixed', { linesPerFile: 0, maxOutputBytes: 2000 }),
    (result) => {
      assert.equal(result.truncated, false);
      // Every one of its 40 lines (2,000 bytes of git grep's lines hold 4 of them).
      assert.equal(result.counts.get('data/long.txt'), 40);
      assert.ok(result.counts.size > 3, `${result.counts.size} files counted`);
    },
  ],
  [
    'the output cap, cut inside a line',
    grep(['long'], 'fixed', { maxOutputBytes: 2000 }),
    (result) => {
      assert.equal(result.truncated, true);
      assert.equal(result.counts.get('data/long.txt'), 4);
    },
  ],
  // The first record ("<commit>:docs/README.md\0" "2\0" and 32 bytes of text) has a 58-byte head and 91 bytes in all.
  ...[1, 57, 58, 59, 60, 90, 91, 92, 200, 600].map((maxOutputBytes): [string, GrepOptions, (result: GrepResult) => void] => [
    `the output cap at ${maxOutputBytes} bytes`,
    grep(['parseConfig'], 'fixed', { maxOutputBytes }),
    (result) => assert.equal(result.truncated, true),
  ]),
];

/** A tool context over `repo` served as `name`; Deep Search is not used by these tests. */
export function toolContext(repo: TestRepo, name: string, searchIndexes?: SearchIndexes): ToolContext {
  return {
    repositories: [{ name, dir: repo.dir, bare: false }],
    user: { id: 1, name: 'owner' },
    instanceUrl: 'http://127.0.0.1:1',
    signal: new AbortController().signal,
    deepSearch: {
      create: () => Promise.reject(new Error('not used')),
      get: () => {
        throw new Error('not used');
      },
    },
    deepSearchWaitMs: 1000,
    pcre: { available: true },
    caches: new RepoCaches(),
    regex: new RegexWorker(),
    launcher: new ProcessLauncher(),
    toolName: toolNamer('v1'),
    ...(searchIndexes ? { searchIndexes } : {}),
  };
}

export async function head(repo: TestRepo): Promise<string> {
  return (await repo.git('rev-parse', 'HEAD')).trim();
}
