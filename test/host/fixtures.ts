/**
 * Runs in the host-test runner (scripts/test-host.mjs), outside VS Code: makes the workspace a real
 * git repository of the sample app and starts the engines the host tests talk to. They live outside
 * the extension host so that they survive a window reload.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { startEngine } from '../../src/engine/server';
import type { RunningEngine } from '../../src/engine/options';
import type { OAuthOptions } from '../../src/engine/oauth/authorizationServer';
import { BILLING_FILES, BILLING_NAME, CHECKOUT_TS, PRICE_ROUNDED } from './billingRepo';
import { createTestRepo, git, type TestRepo, SAMPLE_APP_FILES, SAMPLE_APP_NAME, SAMPLE_APP_ORIGIN } from '../support/gitRepos';

export const HOST_TEST_TOKEN = 'dse_host_test_token_0123456789abcdef';
/** The OAuth client pre-registered on the fast engine, and how long its access tokens live there. */
export const HOST_OAUTH_CLIENT_ID = 'deep-search-vscode-host-tests';
export const OAUTH_TOKEN_SECONDS = 8;
/** Questions that contain this fail on every host engine as a used-up quota does. */
export const QUOTA_QUESTION_MARK = '[use up the quota]';
/** A second user, whose conversations the first can only read through their share links. */
export const OTHER_USER_TOKEN = 'dse_host_test_other_user_0123456789';

export interface HostTestOptions {
  grep?: string;
  runDir: string;
  workspace: string;
  repoName: string;
  token: string;
  otherToken: string;
  /** Answers in a second or two. */
  engineUrl: string;
  /** Answers in ten seconds or more: questions stay running while the tests look at them. */
  slowEngineUrl: string;
  /** Answers slowly enough (half a minute or more) for a question to outlive a window reload. */
  slowerEngineUrl: string;
  /** Answers in over a minute (what the instance's own 50-second tool could not wait for). */
  slowestEngineUrl: string;
  /** A second repository the engines serve but the workspace does not hold (remote documents). */
  billingRepoName: string;
  /** The OAuth client pre-registered on the fast engine, and how long its access tokens live there. */
  oauthClientId: string;
  oauthTokenSeconds: number;
  /** Questions that contain this fail as a used-up quota does (with when to ask again). */
  quotaQuestionMark: string;
}

export async function prepareWorkspace(dir: string): Promise<void> {
  await git(dir, ['init', '--quiet', '--initial-branch', 'main']);
  for (const [file, content] of Object.entries({ ...SAMPLE_APP_FILES, 'src/checkout.ts': CHECKOUT_TS })) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content, 'utf8');
  }
  await git(dir, ['add', '--all']);
  const author = { GIT_AUTHOR_NAME: 'Test Author', GIT_AUTHOR_EMAIL: 'author@example.com' };
  await git(dir, ['commit', '--quiet', '-m', 'Sample app'], { ...author, GIT_COMMITTER_NAME: 'Test Author', GIT_COMMITTER_EMAIL: 'author@example.com' });
  await git(dir, ['remote', 'add', 'origin', SAMPLE_APP_ORIGIN]);
}

/** The billing repository (see billingRepo.ts) in two commits. */
export function createBillingRepo(): Promise<TestRepo> {
  return createTestRepo({
    name: 'billing',
    origin: `https://${BILLING_NAME}.git`,
    commits: [
      { files: BILLING_FILES, message: 'Billing helpers' },
      { files: { 'src/price.ts': PRICE_ROUNDED }, message: 'Round prices to whole cents' },
    ],
  });
}

export async function startHostTestEngines(runDir: string, workspace: string): Promise<{ engines: RunningEngine[]; options: Omit<HostTestOptions, 'grep'> }> {
  const billing = await createBillingRepo();
  const start = (name: string, paceMs: number, oauth?: OAuthOptions) =>
    startEngine({
      repos: [workspace, billing.dir],
      users: [{ token: HOST_TEST_TOKEN }, { token: OTHER_USER_TOKEN }],
      dataDir: path.join(runDir, name),
      paceMs,
      // A question that names QUOTA_QUESTION_MARK fails as a used-up quota does, with when to ask again.
      faults: {
        question: (text) =>
          text.includes(QUOTA_QUESTION_MARK)
            ? {
                kind: 'RateLimitExceeded',
                title: 'Quota reached',
                message: 'You have used your Deep Search quota for today.',
                retry_time: new Date(Date.now() + 30 * 60_000).toISOString(),
              }
            : undefined,
      },
      ...(oauth ? { oauth } : {}),
    });
  // OAuth access tokens that live seconds, so that renewal happens while the tests look.
  const fast = await start('engine-data', 100, {
    clients: [{ id: HOST_OAUTH_CLIENT_ID, redirectUris: ['http://127.0.0.1/callback'] }],
    accessTokenSeconds: OAUTH_TOKEN_SECONDS,
  });
  const slow = await start('slow-engine-data', 2500);
  const slower = await start('slower-engine-data', 6000);
  const slowest = await start('slowest-engine-data', 16_000);
  return {
    engines: [fast, slow, slower, slowest],
    options: {
      runDir,
      workspace,
      repoName: SAMPLE_APP_NAME,
      token: HOST_TEST_TOKEN,
      otherToken: OTHER_USER_TOKEN,
      engineUrl: fast.url,
      slowEngineUrl: slow.url,
      slowerEngineUrl: slower.url,
      slowestEngineUrl: slowest.url,
      billingRepoName: BILLING_NAME,
      oauthClientId: HOST_OAUTH_CLIENT_ID,
      oauthTokenSeconds: OAUTH_TOKEN_SECONDS,
      quotaQuestionMark: QUOTA_QUESTION_MARK,
    },
  };
}
