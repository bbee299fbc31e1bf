/**
 * The regular expression worker (regex.ts): runs one request at a time under a time limit and posts
 * back the result or what went wrong. The limit is `vm`'s, which applies to a script run in a
 * context: the script only calls `match`, and the caller's pattern reaches nothing but the RegExp
 * constructor. A pattern that backtracks catastrophically is stopped there, and the thread lives on.
 */
import { parentPort } from 'node:worker_threads';
import vm from 'node:vm';
import type { RegexReply, RegexRequest } from './regex';

const port = parentPort;
if (port === null) throw new Error('regexWorkerThread.ts runs as a worker thread (regex.ts starts it)');

/** Which of the inputs the pattern matches. */
function testEach(pattern: string, flags: string, inputs: readonly string[]): boolean[] {
  const re = new RegExp(pattern, flags);
  return inputs.map((input) => re.test(input));
}

/** Where the pattern matches in each input, at most `limit` non-empty ranges each. */
function rangesEach(pattern: string, flags: string, inputs: readonly string[], limit: number): Array<Array<[number, number]>> {
  const re = new RegExp(pattern, flags.includes('g') ? flags : `${flags}g`);
  return inputs.map((input) => {
    const found: Array<[number, number]> = [];
    re.lastIndex = 0;
    let match: RegExpExecArray | null;
    while (found.length < limit && (match = re.exec(input)) !== null) {
      if (match[0] === '') {
        re.lastIndex++;
        continue;
      }
      found.push([match.index, match.index + match[0].length]);
    }
    return found;
  });
}

function match(request: RegexRequest): unknown {
  return request.kind === 'test'
    ? testEach(request.pattern, request.flags, request.inputs)
    : rangesEach(request.pattern, request.flags, request.inputs, request.limit);
}

const context: { match: typeof match; request: RegexRequest | undefined; result: unknown } = { match, request: undefined, result: undefined };
vm.createContext(context, { codeGeneration: { strings: false, wasm: false } });
const underTimeLimit = new vm.Script('result = match(request)');

port.on('message', (request: RegexRequest) => {
  let reply: RegexReply;
  // The last request's result was cleared as it ended.
  context.request = request;
  try {
    underTimeLimit.runInContext(context, { timeout: request.timeoutMs });
    reply = { id: request.id, result: context.result };
  } catch (error) {
    const described = typeof error === 'object' && error !== null && 'message' in error ? error.message : undefined;
    const message = typeof described === 'string' && described !== '' ? described : String(error);
    reply = { id: request.id, error: message, timedOut: /timed out/i.test(message) };
  } finally {
    context.request = undefined;
    context.result = undefined;
  }
  port.postMessage(reply);
});
