/**
 * Starts a real local engine for a test: temp data folder, the sample repository (unless repos are
 * given), two users, a fast pace. `api()` calls it over real HTTP as either user; `waitFor` polls
 * with a deadline instead of sleeping.
 */
import type { WireConversation } from '../../src/contract/legacyWire';
import { API_PATH } from '../../src/contract/legacyWire';
import type { EngineOptions, EngineUser, RunningEngine } from '../../src/engine/options';
import { startEngine } from '../../src/engine/server';
import { createSampleAppRepo, createTempDir, removeDir, type TestRepo } from './gitRepos';

/** Tokens of the two default users: index 0 is user 1 (the usual owner), index 1 is user 2. */
export const TEST_TOKENS = ['dse_test_owner_token', 'dse_test_other_token'] as const;
export const TEST_USERS: readonly EngineUser[] = [
  { token: TEST_TOKENS[0], id: 1, name: 'owner' },
  { token: TEST_TOKENS[1], id: 2, name: 'other' },
];
export const CLIENT_HEADER = 'engine-tests 1.0.0';

export type TestEngineOptions = Partial<EngineOptions>;

export interface ApiCallInit {
  method?: string;
  /** Sent as JSON unless it is already a string. */
  body?: unknown;
  /** Which default user calls (0 or 1), or `null` to send no Authorization header. Default 0. */
  user?: 0 | 1 | null;
  /** Extra or overriding headers; a header set to `null` is not sent. */
  headers?: Record<string, string | null>;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is empty or not JSON. */
  json: T;
}

export interface TestEngine {
  engine: RunningEngine;
  /** The instance URL, e.g. `http://127.0.0.1:40123`. Changes on restart. */
  url: string;
  /** `url` + `/.api/deepsearch/v1`. */
  apiUrl: string;
  dataDir: string;
  /** Options the engine was (re)started with. */
  options: EngineOptions;
  /** The sample repository when the harness created it. */
  sampleRepo?: TestRepo;
  /** Calls `apiUrl + path` with the token, `X-Requested-With` and JSON headers. */
  api<T = unknown>(path: string, init?: ApiCallInit): Promise<ApiResponse<T>>;
  /** Creates a conversation as `user` and returns it (asserting a 2xx answer). */
  ask(question: string, user?: 0 | 1): Promise<WireConversation>;
  /** Polls the conversation until no question is processing. */
  waitUntilFinished(conversationId: number, user?: 0 | 1): Promise<WireConversation>;
  /** Stops the engine (data kept) and starts it again on the same data folder. */
  restart(overrides?: TestEngineOptions): Promise<void>;
  /** Stops the engine, keeping the data folder. */
  stop(): Promise<void>;
  /** Stops the engine and deletes the temp folders the harness made. */
  dispose(): Promise<void>;
}

/** Starts an engine on a fresh temp data folder; pass options to override any default. */
export async function startTestEngine(overrides: TestEngineOptions = {}): Promise<TestEngine> {
  const ownedDirs: string[] = [];
  let sampleRepo: TestRepo | undefined;
  let repos = overrides.repos;
  if (!repos) {
    sampleRepo = await createSampleAppRepo();
    repos = [sampleRepo.dir];
  }
  let dataDir = overrides.dataDir;
  if (!dataDir) {
    dataDir = await createTempDir('dse-data-');
    ownedDirs.push(dataDir);
  }
  let options: EngineOptions = { users: [...TEST_USERS], paceMs: 20, ...overrides, repos, dataDir };
  let engine = await startEngine(options);
  let running = true;

  const harness: TestEngine = {
    engine,
    url: engine.url,
    apiUrl: engine.url + API_PATH,
    dataDir,
    options,
    ...(sampleRepo ? { sampleRepo } : {}),
    async api<T>(path: string, init: ApiCallInit = {}): Promise<ApiResponse<T>> {
      return callApi<T>(harness.apiUrl + path, options.users, init);
    },
    async ask(question, user = 0) {
      const response = await harness.api<WireConversation>('/', { method: 'POST', body: { question }, user });
      if (response.status < 200 || response.status > 299) {
        throw new Error(`create answered ${response.status}: ${response.text}`);
      }
      return response.json;
    },
    async waitUntilFinished(conversationId, user = 0) {
      const response = await waitFor(
        () => harness.api<WireConversation>(`/${conversationId}`, { user }),
        (latest) => latest.status === 200 && latest.json.questions.every((q) => q.status !== 'processing'),
        { description: `conversation ${conversationId} to finish` },
      );
      return response.json;
    },
    async restart(restartOverrides = {}) {
      await harness.stop();
      options = { ...options, ...restartOverrides };
      engine = await startEngine(options);
      running = true;
      Object.assign(harness, { engine, url: engine.url, apiUrl: engine.url + API_PATH, options });
    },
    async stop() {
      if (!running) return;
      running = false;
      await engine.close();
    },
    async dispose() {
      await harness.stop();
      await sampleRepo?.remove();
      for (const dir of ownedDirs) await removeDir(dir);
    },
  };
  return harness;
}

/** One HTTP call with the engine's required headers; `users[init.user]` supplies the token. */
export async function callApi<T = unknown>(url: string, users: readonly EngineUser[], init: ApiCallInit = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Requested-With': CLIENT_HEADER };
  const user = init.user === undefined ? 0 : init.user;
  if (user !== null) {
    const token = users[user]?.token;
    if (!token) throw new Error(`no test user ${user}`);
    headers.Authorization = `token ${token}`;
  }
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['Content-Type'] = 'application/json';
  }
  overrideHeaders(headers, init.headers);
  return readApiResponse<T>(await fetch(url, { method: init.method ?? 'GET', headers, body }));
}

/** Sets `overrides` on `headers` whatever their case; a null removes the header. */
export function overrideHeaders(headers: Record<string, string>, overrides: Readonly<Record<string, string | null>> = {}): void {
  for (const [name, value] of Object.entries(overrides)) {
    const existing = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase());
    if (existing) delete headers[existing];
    if (value !== null) headers[name] = value;
  }
}

/** A response's status, headers, text and (when it is JSON) parsed body. */
export async function readApiResponse<T = unknown>(response: Response): Promise<ApiResponse<T>> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json: json as T };
}

export interface WaitOptions {
  /** Default 10 s. */
  timeoutMs?: number;
  /** Default 25 ms. */
  intervalMs?: number;
  /** Named in the timeout error: "timed out waiting for <description>". */
  description?: string;
}

/** Calls `probe` until `done(result)` holds, or throws with the last result after the deadline. */
export async function waitFor<T>(probe: () => Promise<T>, done: (value: T) => boolean, options: WaitOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      const last = JSON.stringify(value, (_key, item: unknown) => (item instanceof Headers ? undefined : item))?.slice(0, 500);
      throw new Error(`timed out waiting for ${options.description ?? 'a condition'}; last value: ${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
