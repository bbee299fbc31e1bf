/**
 * The ways an OpenAI-compatible model server misbehaves (test/support/scriptedModel.ts plays each),
 * with the first line the engine's answer must then begin with; shared by the test of the shipped
 * engine (test/shipped/) and the bench's figure "model failures". And what both read of an engine
 * process to find a key where it must not be: its children's environments and its data folder.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import * as path from 'node:path';
import type { ScriptedReply } from './scriptedModel';

export interface ModelFault {
  /** What the server does, after "when the server …". */
  name: string;
  script: ScriptedReply[];
  /** The answer's first line. */
  line: RegExp;
  /** A tool call comes before the failure: its tokens and the call must stay in the stats. */
  spent?: boolean;
  /** More arguments for the engine. */
  extra?: string[];
}

/** A first turn that calls a tool, so that a failure after it has something spent to keep. */
export const SEARCH_TURN: ScriptedReply = {
  toolCalls: [{ name: 'keyword_search', arguments: { query: 'parseConfig' } }],
  usage: { prompt: 1_200, completion: 30 },
};

export const MODEL_FAULTS: readonly ModelFault[] = [
  {
    name: 'refuses the key with a 401 whose message echoes the Authorization header',
    script: [{ status: 401, error: 'Invalid API key', echoAuthorization: true }],
    line: /^> The model server at 127\.0\.0\.1:\d+ refused the key \(401\) \(Invalid API key; request headers: \[redacted\]\): check \$[A-Z_]+\. /,
  },
  {
    name: 'answers 500, echoing the Authorization header, after a tool call',
    script: [SEARCH_TURN, { status: 500, error: 'upstream failed', echoAuthorization: true }],
    line: /^> The model server at 127\.0\.0\.1:\d+ answered 500 after one tool call \(upstream failed; request headers: \[redacted\]\)\. /,
    spent: true,
  },
  {
    name: 'cuts the stream in the middle of a reply',
    script: [SEARCH_TURN, { fault: 'cut' }],
    line: /^> The model server at 127\.0\.0\.1:\d+ (?:closed the connection before its reply was complete|stopped in the middle of its reply) after one tool call: check the server’s log\. /,
    spent: true,
  },
  {
    name: 'sends an event stream that is not JSON',
    script: [{ fault: 'malformed' }],
    line: /^> The model server at 127\.0\.0\.1:\d+ sent a reply the engine could not read \(.+\)\. /,
  },
  {
    name: 'sends an HTML page with status 200',
    script: [{ fault: 'html' }],
    line: /^> The model server at 127\.0\.0\.1:\d+ sent text\/html, not a chat completion: check that --model-url is its OpenAI-compatible base URL/,
  },
  {
    name: 'starts a reply and never ends it',
    script: [{ fault: 'never-ends' }],
    line: /^> scripted-1 at http:\/\/127\.0\.0\.1:\d+\/v1 sent no answer in 3 s, the time a question may take\. /,
    extra: ['--model-timeout', '3'],
  },
  {
    name: 'floods the event stream',
    script: [{ fault: 'flood' }],
    line: /^> The model server at 127\.0\.0\.1:\d+ sent a reply of more than 512 KB of text, which was cut off: /,
  },
  {
    name: 'floods one endless line that never completes an event',
    script: [{ fault: 'flood-line' }],
    line: /^> The model server at 127\.0\.0\.1:\d+ sent a reply of more than 16 MB, which was cut off: /,
  },
];

/** The environments of every process below `pid`, read from /proc while they run. */
export async function descendantEnvironments(pid: number): Promise<string[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The parent's id is the second field after the command's closing parenthesis.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(parent)) parents.set(Number(entry), parent);
  }
  const below = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parents) {
      if (below.has(parent) && !below.has(child)) {
        below.add(child);
        grew = true;
      }
    }
  }
  below.delete(pid);
  const environments: string[] = [];
  for (const child of below) {
    const environment = await readFile(`/proc/${child}/environ`, 'utf8').catch(() => undefined);
    if (environment !== undefined) environments.push(environment.replace(/\0/g, '\n'));
  }
  return environments;
}

/** Every file below `dir`, as text. */
export async function allText(dir: string): Promise<string> {
  const texts: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) texts.push(await readFile(path.join(entry.parentPath, entry.name), 'utf8'));
  }
  return texts.join('\n');
}

/** A port on 127.0.0.1 that nothing listens on (taken, then let go). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address && typeof address === 'object');
  return address.port;
}
