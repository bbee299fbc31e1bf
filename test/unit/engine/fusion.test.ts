/**
 * Fusing rankings (src/engine/repo/fusion.ts), and the order of an answer's candidates that
 * fuses the definitions ranking, the definitions by what they are and BM25 over the source files
 * (src/engine/repo/candidateOrder.ts).
 */
import assert from 'node:assert/strict';
import { orderCandidates } from '../../../src/engine/repo/candidateOrder';
import { bestOf, fuse } from '../../../src/engine/repo/fusion';
import { analyseQuestion } from '../../../src/engine/repo/question';
import type { CandidateFile, ScoredSpan } from '../../../src/engine/repo/spanRanking';
import type { FileKind } from '../../../src/engine/code/fileKinds';

describe('fusion of rankings', function () {
  it('puts first what every ranking agrees on, and what two of three put first over what one does', function () {
    const order = fuse([
      {
        scores: new Map([
          ['a', 10],
          ['b', 9],
        ]),
        weight: 1,
      },
      {
        scores: new Map([
          ['b', 5],
          ['a', 1],
        ]),
        weight: 1,
      },
      { scores: new Map([['b', 2]]), weight: 1 },
    ]);
    assert.deepEqual(order, ['b', 'a']);
  });

  it('keeps the margin of a ranking that is sure of its first', function () {
    const order = fuse([
      {
        scores: new Map([
          ['named', 30],
          ['other', 3],
        ]),
        weight: 1,
      },
      {
        scores: new Map([
          ['other', 4],
          ['named', 1],
        ]),
        weight: 0.25,
      },
    ]);
    assert.deepEqual(order, ['named', 'other']);
  });

  it("takes a group's best score as its score", function () {
    assert.deepEqual(
      [
        ...bestOf(
          [
            ['f', 1],
            ['f', 3],
            ['g', 2],
          ] as const,
          ([group]) => group,
          ([, score]) => score,
        ),
      ],
      [
        ['f', 3],
        ['g', 2],
      ],
    );
  });
});

function candidate(path: string, lines: string[], fileScore: number, kind: FileKind = 'implementation'): CandidateFile {
  return { path, kind, lines, definitions: [], fileScore };
}

function span(file: CandidateFile, name: string, score: number): ScoredSpan {
  const definition = { name, kind: 'function' as const, line: 1, endLine: file.lines.length, nameLine: 1 };
  return { file, definition, start: 1, end: file.lines.length, bestLine: 1, score, termsHeld: [], named: false };
}

describe('candidate order', function () {
  const description =
    'The client keeps connections to each host after a response is read, and hands a stored connection out again ' +
    'instead of opening a new socket for the next request to that host.';

  it('falls back to what the definitions say and BM25 find when the name ranking misfires on a description', function () {
    const pool = candidate(
      'src/pool.rs',
      ['fn take(&self, key: &HostKey) -> Option<Stream> {', '  // a stored connection, reused for the host', '  self.connections.remove(key)', '}'],
      9,
    );
    const request = candidate('src/request.rs', ['fn new_request(&self) -> Request {', '  Request::new()', '}'], 2);
    const { spans } = orderCandidates([span(request, 'new_request', 5), span(pool, 'take', 4)], analyseQuestion(description));
    assert.equal(spans[0]?.file.path, 'src/pool.rs');
  });

  it('keeps the definitions ranking first for a short question when it is well ahead', function () {
    const named = candidate('src/proxy.rs', ['fn connect_tunnel() {', '}'], 1);
    const noisy = candidate('src/agent.rs', ['fn build() {', '  // proxy tunnel connect proxy tunnel connect', '}'], 9);
    const ordered = orderCandidates([span(named, 'connect_tunnel', 20), span(noisy, 'build', 6)], analyseQuestion('How does it open a proxy tunnel?'));
    assert.equal(ordered.spans[0]?.file.path, 'src/proxy.rs');
    assert.equal(ordered.unanimous, false, 'BM25 puts the other file first');
  });

  it('never leads with a test, whatever BM25 says of it', function () {
    const test = candidate('tests/pool_test.rs', ['fn pool_reuse() {', '  // stored connection reused for the host', '}'], 50, 'test');
    const pool = candidate('src/pool.rs', ['fn take() {', '  // stored connection', '}'], 1);
    const { spans } = orderCandidates([span(test, 'pool_reuse', 9), span(pool, 'take', 3)], analyseQuestion(description));
    assert.equal(spans[0]?.file.path, 'src/pool.rs');
  });
});
