import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { repoNameFromRemote } from '../../../../src/contract/repoNames';
import { discoverRepositories, RepositoryError } from '../../../../src/engine/git/repos';
import { startTestEngine } from '../../../support/engineHarness';
import { createTempDir, createTestRepo, removeDir, type TestRepo } from '../../../support/gitRepos';

describe('repository naming from remotes', function () {
  const cases: Array<[string, string | undefined]> = [
    ['https://github.com/acme/app', 'github.com/acme/app'],
    ['https://github.com/acme/app.git', 'github.com/acme/app'],
    ['https://github.com/acme/app/', 'github.com/acme/app'],
    ['https://user:secret@GitHub.com/acme/app.git', 'github.com/acme/app'],
    ['http://gitlab.example.com:8080/group/sub/app.git', 'gitlab.example.com/group/sub/app'],
    ['ssh://git@github.com/acme/app.git', 'github.com/acme/app'],
    ['ssh://git@github.com:2222/acme/app.git', 'github.com/acme/app'],
    ['git@github.com:acme/app.git', 'github.com/acme/app'],
    ['git@bitbucket.org:team/app', 'bitbucket.org/team/app'],
    ['/srv/git/app.git', undefined],
    ['../app', undefined],
    ['file:///srv/git/app.git', undefined],
    ['C:\\src\\app', undefined],
    ['https://github.com/../etc', undefined],
    ['', undefined],
  ];
  for (const [remote, expected] of cases) {
    it(`names ${JSON.stringify(remote)} ${expected ?? '(no name: use the folder)'}`, function () {
      assert.equal(repoNameFromRemote(remote), expected);
    });
  }
});

describe('repository discovery', function () {
  const made: TestRepo[] = [];
  const dirs: string[] = [];
  after(async function () {
    for (const repo of made) await repo.remove();
    for (const dir of dirs) await removeDir(dir);
  });
  async function repo(name: string, origin?: string, bare = false): Promise<TestRepo> {
    const created = await createTestRepo({ name, ...(origin ? { origin } : {}), bare, commits: [{ files: { 'a.txt': 'alpha\n' }, message: 'first' }] });
    made.push(created);
    return created;
  }

  it('names a repository after its origin, with credentials stripped', async function () {
    const app = await repo('checkout', 'https://someone:hunter2@github.com/acme/app.git');
    const [found] = await discoverRepositories([app.dir]);
    assert.equal(found?.name, 'github.com/acme/app');
    assert.equal(found?.bare, false);
  });

  it('falls back to the folder name without an origin, and serves the top level of a subfolder', async function () {
    const local = await repo('local-project');
    await mkdir(path.join(local.dir, 'nested'), { recursive: true });
    const [found] = await discoverRepositories([path.join(local.dir, 'nested')]);
    assert.equal(found?.name, 'local-project');
    assert.equal(path.basename(found?.dir ?? ''), 'local-project');
  });

  it('disambiguates repositories that would share a name, and serves a folder given twice once', async function () {
    const one = await repo('one', 'git@github.com:acme/dup.git');
    const two = await repo('two', 'https://github.com/acme/dup');
    const found = await discoverRepositories([one.dir, two.dir, one.dir]);
    assert.deepEqual(
      found.map((r) => r.name),
      ['github.com/acme/dup', 'github.com/acme/dup-2'],
    );
  });

  it('accepts a bare repository', async function () {
    const bare = await repo('served', 'ssh://git@git.example.com/team/served.git', true);
    const [found] = await discoverRepositories([bare.dir]);
    assert.equal(found?.bare, true);
    assert.equal(found?.name, 'git.example.com/team/served');
  });

  it('refuses a folder that is not a git repository, and one that does not exist, saying which', async function () {
    const plain = await createTempDir('dse-plain-');
    dirs.push(plain);
    await assert.rejects(discoverRepositories([plain]), (error: unknown) => {
      assert.ok(error instanceof RepositoryError);
      assert.match(error.message, new RegExp(`${escape(plain)} is not a git repository`));
      return true;
    });
    const missing = path.join(plain, 'missing');
    await assert.rejects(discoverRepositories([missing]), /does not exist or is not a directory/);
    await assert.rejects(discoverRepositories([]), /at least one git repository/);
  });

  it('answers from a bare repository and from two repositories at once', async function () {
    const bare = await createTestRepo({
      name: 'tools',
      origin: 'https://github.com/acme/tools.git',
      bare: true,
      commits: [{ files: { 'bin/deploy.sh': '#!/bin/sh\ndeploy_service() {\n  echo deploying\n}\n' }, message: 'deploy' }],
    });
    made.push(bare);
    const engine = await startTestEngine({ repos: [bare.dir, (await repo('other', 'https://github.com/acme/other.git')).dir] });
    try {
      assert.deepEqual(engine.engine.repoNames, ['github.com/acme/tools', 'github.com/acme/other']);
      const finished = await engine.waitUntilFinished((await engine.ask('What does `deploy_service` do?')).id);
      const question = finished.questions[0];
      assert.match(question?.answer ?? '', new RegExp(`${escape(engine.url)}/github\\.com/acme/tools/-/blob/bin/deploy\\.sh\\?L1-4`));
      assert.match(question?.answer ?? '', /```bash\n/);
      const revision = (await bare.git('rev-parse', 'HEAD')).trim();
      assert.deepEqual(question?.sources, [
        {
          type: 'File',
          link: '/github.com/acme/tools/-/blob/bin/deploy.sh',
          label: 'bin/deploy.sh',
          metadata: { repoName: 'github.com/acme/tools', revision },
        },
      ]);
      assert.match(question?.turns?.[1]?.reasoning ?? '', /^Searching 2 repositories for `deploy_service`/);
    } finally {
      await engine.dispose();
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
