/**
 * How definitions are ranked for a question (src/engine/repo/spanRanking.ts), on files given as
 * lines with their definitions: the rules the answers issue names, one test each.
 */
import assert from 'node:assert/strict';
import { analyseQuestion } from '../../../src/engine/repo/question';
import { rankSpans, type CandidateFile } from '../../../src/engine/repo/spanRanking';
import type { Definition } from '../../../src/engine/code/definitions';
import type { FileKind } from '../../../src/engine/code/fileKinds';

function file(path: string, lines: string[], definitions: Definition[], kind: FileKind = 'implementation', fileScore = 1): CandidateFile {
  return { path, kind, lines, definitions, fileScore };
}

function fn(name: string, line: number, endLine: number, container?: string): Definition {
  return { name, kind: 'function', line, endLine, nameLine: line, ...(container ? { container } : {}) };
}

/** Every term weighs one: the tests are about where the words are, not how rare. */
function weightsOf(question: string): Map<string, number> {
  return new Map(analyseQuestion(question).terms.map((term) => [term.text, 1]));
}

async function lead(question: string, files: CandidateFile[]): Promise<string> {
  const [best] = await rankSpans(files, analyseQuestion(question), weightsOf(question));
  return `${best?.file.path}:${best?.definition ? `${best.definition.container ?? ''}.${best.definition.name}` : best?.start}`;
}

const filler = (count: number): string[] => Array.from({ length: count }, (_, at) => `  step${at}();`);

describe('span ranking', function () {
  it('prefers a definition whose words meet in a few lines to one where they are scattered', async function () {
    const question = 'How is the token refreshed before expiry?';
    const close = ['function renew() {', '  // the token is refreshed before its expiry', ...filler(40), '}'];
    const scattered = ['function update() {', '  const token = read();', ...filler(20), '  refreshed = true;', ...filler(20), '  check(expiry);', '}'];
    assert.equal(
      await lead(question, [file('src/a.ts', scattered, [fn('update', 1, scattered.length)]), file('src/b.ts', close, [fn('renew', 1, close.length)])]),
      'src/b.ts:.renew',
    );
  });

  it("takes a member form's owner: `res.cookie` is the cookie of res, not of another object", async function () {
    // Both are named `cookie`; only the owner tells them apart.
    const question = 'How does res.cookie set the value?';
    const lines = ['req.cookie = function (value) {', '  return value;', '};', 'res.cookie = function (value) {', '  return value;', '};'];
    assert.equal(await lead(question, [file('lib/both.js', lines, [fn('cookie', 1, 3, 'req'), fn('cookie', 4, 6, 'res')])]), 'lib/both.js:res.cookie');
  });

  it("puts a member of another owner with the member form's name (a namesake) after the code that does what is asked", async function () {
    // `res.render` hands over to `app.render`, which builds a View; what finds the template is View's lookup.
    const question = 'How does res.render find the template file on disk?';
    const response = ['res.render = function render(view, options) {', '  app.render(view, options);', '};'];
    const application = ['app.render = function render(name, options) {', '  const view = new View(name, options);', '  view.render(options);', '};'];
    const view = [
      'View.prototype.lookup = function lookup(name) {',
      '  // find the template file on disk, in each root',
      '  for (const root of this.roots) { const file = resolve(root, name); if (exists(file)) return file; }',
      '};',
      'View.prototype.render = function render(options) {',
      '  this.engine(this.path, options);',
      '};',
    ];
    const files = [
      file('lib/response.js', response, [fn('render', 1, 3, 'res')]),
      file('lib/application.js', application, [fn('render', 1, 4, 'app')]),
      file('lib/view.js', view, [fn('lookup', 1, 4, 'View'), fn('render', 5, 7, 'View')]),
    ];
    const ranked = await rankSpans(files, analyseQuestion(question), weightsOf(question));
    const order = ranked.map((span) => `${span.definition?.container ?? ''}.${span.definition?.name ?? span.start}`);
    assert.equal(order[0], 'res.render', order.join(' '));
    assert.ok(order.indexOf('View.lookup') < order.indexOf('app.render'), order.join(' '));
    assert.equal(ranked.find((span) => span.definition?.container === 'app')?.named, false, 'a namesake is not what the question names');
    // With no `res.render` among the candidates, a namesake is still the best the question's name finds.
    const [best] = await rankSpans(files.slice(1), analyseQuestion(question), weightsOf(question));
    assert.equal(best?.named, true);
  });

  it('lets a definition the question names, or whose body holds its words, beat lines that merely mention them', async function () {
    const question = 'How does the cache evict stale entries?';
    const mentions = ['// cache: evict stale entries (see evictStale)', 'const cacheEvictStaleEntries = true;'];
    const code = ['function evictStale(cache) {', '  for (const entry of cache.entries) if (entry.stale) cache.evict(entry);', '}'];
    assert.equal(
      await lead(question, [file('src/notes.ts', mentions, [], 'implementation', 3), file('src/cache.ts', code, [fn('evictStale', 1, 3)])]),
      'src/cache.ts:.evictStale',
    );
  });

  it('ranks a test that holds every word after the code it tests', async function () {
    const question = 'How is the config file parsed?';
    const test = ['it("parses the config file", () => {', '  parseConfigFile("config file parsed");', '});'];
    const code = ['function parseConfigFile(file) {', '  return JSON.parse(file);', '}'];
    assert.equal(
      await lead(question, [
        file('test/config.test.ts', test, [fn('parses the config file', 1, 3)], 'test', 3),
        file('src/config.ts', code, [fn('parseConfigFile', 1, 3)]),
      ]),
      'src/config.ts:.parseConfigFile',
    );
  });

  it('scores a class by its head, so its method that holds the words wins over the class around it', async function () {
    const question = 'How does the pool reuse idle connections?';
    const lines = [
      'class Pool {',
      '  // connections kept',
      '  size = 4;',
      '  take() {',
      '    // reuse an idle connection from the pool',
      '    return this.idle.pop();',
      '  }',
      ...filler(200),
      '}',
    ];
    const definitions: Definition[] = [
      { name: 'Pool', kind: 'class', line: 1, endLine: lines.length, nameLine: 1 },
      { name: 'take', kind: 'method', line: 4, endLine: 7, nameLine: 4, container: 'Pool' },
    ];
    const spans = await rankSpans([file('src/pool.ts', lines, definitions)], analyseQuestion(question), weightsOf(question));
    assert.equal(spans[0]?.definition?.name, 'take');
    const pool = spans.find((span) => span.definition?.name === 'Pool');
    assert.deepEqual([pool?.start, pool?.end], [1, 3], 'the class is its head: up to its first method');
  });
});
