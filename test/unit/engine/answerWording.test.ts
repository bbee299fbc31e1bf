/**
 * Answers that hold up to any wording (issue #34), on real git repositories made by the tests: a
 * paragraph describing the code is answered as well as a question, with a second guess when the
 * lead is not clearly ahead; the lead says what its documentation says; how it is reached lists
 * calls only, other declarations of the name apart.
 */
import assert from 'node:assert/strict';
import { Answerer } from '../../../src/engine/answers/answerer';
import type { Answer } from '../../../src/engine/answers/answerShapes';
import { discoverRepositories } from '../../../src/engine/git/repos';
import { createTestRepo, type TestRepo } from '../../support/gitRepos';

async function ask(repo: TestRepo, question: string): Promise<Answer> {
  const answerer = new Answerer({ repositories: await discoverRepositories([repo.dir]), instanceUrl: 'http://x', paceMs: 0 });
  return answerer.answer({ question, earlierQuestions: [], signal: new AbortController().signal, report: async () => undefined });
}

/** The Markdown section under `#### heading`, up to the next heading. */
function section(answer: string, heading: string): string {
  return new RegExp(`#### ${heading}\\n\\n([\\s\\S]*?)(\\n\\n####|$)`).exec(answer)?.[1] ?? '';
}

describe('answers to any wording', function () {
  let writers: TestRepo;
  let pool: TestRepo;
  before(async function () {
    writers = await createTestRepo({
      name: 'writers',
      commits: [
        {
          message: 'writers',
          files: {
            'src/Writer.java': 'public interface Writer {\n    void write(String text);\n}\n',
            'src/FileWriter.java':
              'public class FileWriter implements Writer {\n    @Override\n    public void write(String text) {\n        append(text);\n    }\n\n    private void append(String text) {\n    }\n}\n',
            'src/ConsoleWriter.java':
              'public class ConsoleWriter implements Writer {\n    /**\n     * Prints the text on the console, one line at a time.\n     *\n     * @param text what to print\n     */\n    @Override\n    public void write(String text) {\n        System.out.println(text);\n    }\n}\n',
            'src/Report.java': 'public class Report {\n    void print(Writer out) {\n        out.write("report");\n    }\n}\n',
          },
        },
      ],
    });
    const filler = (name: string, count: number): string => Array.from({ length: count }, (_, at) => `    ${name}_${at} = ${at}\n`).join('');
    pool = await createTestRepo({
      name: 'pool',
      commits: [
        {
          message: 'pool',
          files: {
            'src/pool.py':
              'class ConnectionPool:\n    def take(self, host):\n        """Hands out a kept connection to the host, so that no new socket is opened."""\n' +
              '        for connection in self.idle.get(host, []):\n            if connection.alive():\n                return connection\n        return None\n',
            'src/socket_opener.py': `def open_socket(host, port):\n    """Opens a new socket to the host."""\n${filler('socket', 4)}    return connect(host, port)\n`,
            'src/hosts.py': `def normalise_host(host):\n    """The host name in lower case."""\n${filler('host', 3)}    return host.lower()\n`,
            'src/response.py': `def read_body(connection):\n    """Reads the body, then keeps the connection for the host."""\n${filler('body', 5)}    return connection.read()\n`,
          },
        },
      ],
    });
  });
  after(async function () {
    await writers?.remove();
    await pool?.remove();
  });

  it("says what the lead does in its documentation's first sentence, not as a count of the question's words", async function () {
    const { answer } = await ask(writers, 'Where is `ConsoleWriter.write` defined?');
    assert.match(answer, /^`ConsoleWriter\.write` \(\[src\/ConsoleWriter\.java:7\][^)]*\)\) is the method of `ConsoleWriter` the question names\. /);
    assert.match(answer.split('\n')[0] ?? '', /Its documentation says: “Prints the text on the console, one line at a time\.”/);
    assert.doesNotMatch(answer.split('\n')[0] ?? '', /it holds/);
  });

  it('lists as uses only calls: other declarations of the name are listed apart, as implementations', async function () {
    const { answer } = await ask(writers, 'Where is `ConsoleWriter.write` defined?');
    const reached = section(answer, 'How it is reached');
    const [uses = '', implemented = ''] = reached.split('Implemented by');
    assert.match(uses, /\[src\/Report\.java:3\][^\n]* in `Report\.print`: `out\.write\("report"\);`/, reached);
    assert.doesNotMatch(uses, /FileWriter|Writer\.java/, reached);
    assert.match(implemented, /\[src\/FileWriter\.java:3\][^\n]* in `FileWriter`/, reached);
    assert.match(implemented, /\[src\/Writer\.java:2\]/, reached);
  });

  it('answers a paragraph describing the code, naming the next guesses (signature and one line) before how it is reached', async function () {
    const answer = await ask(
      pool,
      'Which function matches the following description? Connections to a host are kept once a response has been read, ' +
        'and a kept connection is handed out again when the next request goes to that host, instead of opening a new socket.',
    );
    assert.match(answer.answer, /^`ConnectionPool\.take` \(\[src\/pool\.py:2\]/, answer.answer);
    const also = section(answer.answer, 'Also relevant');
    const guesses = also.split('\n').filter((line) => line.startsWith('- '));
    assert.ok(guesses.length >= 2 && guesses.length <= 4, also);
    assert.match(
      also,
      /^- `read_body` in \[src\/response\.py:1\][^\n]*: `def read_body\(connection\):`\. Reads the body, then keeps the connection for the host\./m,
    );
    assert.ok(answer.answer.indexOf('#### Also relevant') < answer.answer.indexOf('#### How it is reached'), answer.answer);
    // Sources in the answer's order: the lead's file, then each other candidate's.
    const before = answer.answer.slice(0, answer.answer.indexOf('#### How it is reached'));
    const cited = [...new Set([...before.matchAll(/\]\(http:\/\/x\/pool\/-\/blob\/([^?)]+)/g)].map((match) => match[1]))];
    assert.deepEqual(
      answer.sources.map((source) => source.label),
      cited,
    );
    assert.ok(cited.length >= 3, cited.join(' '));
  });

  it('names no second guess when the question names the lead', async function () {
    const { answer, sources } = await ask(pool, 'What does `ConnectionPool.take` return?');
    assert.equal(sources.length, 1, answer);
    assert.doesNotMatch(answer, /#### Also relevant/);
  });

  it('names second guesses, the code that does what is asked first, when the lead the question names does not hold the rest of it', async function () {
    // `res.render` only hands over; `app.render` is a namesake; View's lookup finds the template file on disk.
    const views = await createTestRepo({
      name: 'views',
      commits: [
        {
          message: 'views',
          files: {
            'lib/response.js':
              'var res = module.exports = {};\n\nres.render = function render(view, options, callback) {\n  var app = this.req.app;\n  var opts = options || {};\n  opts.locals = this.locals;\n  app.render(view, opts, callback);\n};\n',
            'lib/application.js':
              'var app = module.exports = {};\n\napp.render = function render(name, options, callback) {\n  var cache = this.cache;\n  var view = cache[name];\n  if (!view) {\n    view = new this.View(name, options);\n    cache[name] = view;\n  }\n  view.render(options, callback);\n};\n',
            'lib/view.js':
              "function View(name, options) {\n  this.root = options.root;\n  this.path = this.lookup(name);\n}\n\n/** Finds the template file on disk, in each of the view folders. */\nView.prototype.lookup = function lookup(name) {\n  var roots = [].concat(this.root);\n  for (var i = 0; i < roots.length; i++) {\n    var file = resolve(roots[i], name + '.html');\n    if (exists(file)) return file;\n  }\n};\n\nView.prototype.render = function render(options, callback) {\n  this.engine(this.path, options, callback);\n};\n\nmodule.exports = View;\n",
          },
        },
      ],
    });
    try {
      const { answer } = await ask(views, 'How does res.render find the template file on disk?');
      assert.match(answer, /^`res\.render` \(\[lib\/response\.js:3\]/, answer);
      const also = section(answer, 'Also relevant');
      assert.match(also, /^- `View\.lookup` in \[lib\/view\.js:7\]/, answer);
    } finally {
      await views.remove();
    }
  });
});
