/**
 * No program in a string: code that runs is a module of src, which the compiler, the lint and the
 * layer checks read, never source text handed to `eval`, to a `Function`, to a worker started with
 * `eval: true` or to `node -e`, nor a template that splices in a function's source with
 * `.toString()`. The engine's threads and helper process are modules of their own
 * (src/engine/runtime/entryPoints.ts).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

const SRC = path.join(__dirname, '..', '..', 'src');

/**
 * The only text handed to `node:vm`: Node bounds synchronous work in time (a regular expression
 * that backtracks) only while it runs as a vm script, so a worker runs the function it imported
 * through a script of one call; and a fresh context is the one place a `gc` exposed at run time
 * shows. Each is one expression naming code of its module; anything longer is a program and fails.
 */
const VM_CALLS = new Set(['result = match(request)', 'result = scan(request)', 'typeof gc === "function" ? gc : null']);
const VM_RUNNERS = new Set(['Script', 'runInNewContext', 'runInContext', 'runInThisContext', 'compileFunction', 'SourceTextModule']);

/** What in a source runs a program held in a string, each as `<line>: <what>`. */
function programsInStrings(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const report = (node: ts.Node, what: string): void => {
    found.push(`${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${what}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && node.name.getText(source) === 'eval' && node.initializer.kind === ts.SyntaxKind.TrueKeyword) {
      report(node, 'a worker started from source text (eval: true)');
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'eval') report(node, 'eval()');
    if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === 'Function')
      report(node, 'Function()');
    // Source text for `node:vm`: only the one-call scripts above. (A script's own `runInContext(context)`
    // takes a context, not text: only `vm.x(…)`, or `x(…)` imported bare, takes source first.)
    if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.arguments && node.arguments.length > 0) {
      const callee = node.expression;
      const fromVm = ts.isIdentifier(callee) || (ts.isPropertyAccessExpression(callee) && callee.expression.getText(source) === 'vm');
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : '';
      const first = node.arguments[0];
      const allowed = ts.isStringLiteralLike(first) && VM_CALLS.has(first.text);
      if (VM_RUNNERS.has(name) && (fromVm || ts.isStringLiteralLike(first)) && !allowed) report(node, `source text run by node:vm (${name})`);
    }
    // `spawn(process.execPath, ['-e', source])` and the like: Node handed a program as an argument.
    if (ts.isCallExpression(node) && node.arguments.some((argument) => argument.getText(source) === 'process.execPath')) {
      const evalFlag = node.arguments.some(
        (argument) =>
          ts.isArrayLiteralExpression(argument) &&
          argument.elements.some((element) => ts.isStringLiteralLike(element) && ['-e', '--eval', '-p', '--print'].includes(element.text)),
      );
      if (evalFlag) report(node, 'node -e (a program as an argument)');
    }
    // `${helper.toString()}` in a template: a function's own source spliced into program text (a
    // value's string, such as `${uri.toString()}`, is a property's, and passes).
    if (ts.isTemplateSpan(node)) {
      const spliced = node.expression;
      if (
        ts.isCallExpression(spliced) &&
        spliced.arguments.length === 0 &&
        ts.isPropertyAccessExpression(spliced.expression) &&
        spliced.expression.name.text === 'toString' &&
        ts.isIdentifier(spliced.expression.expression)
      ) {
        report(node, "a function's source spliced into a template (.toString())");
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('no program in a string', () => {
  it('holds no source text run as code anywhere in src', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    assert.ok(files.length > 100, 'the sources are read');
    const found = files.flatMap((file) => programsInStrings(file, readFileSync(path.join(SRC, file), 'utf8')).map((where) => `${file}:${where}`));
    assert.deepEqual(found, []);
  });

  it('finds each kind when it is there (so the check above can fail)', () => {
    const seeded = [
      'new Worker(SOURCE, { eval: true, workerData });',
      "const value = eval('1 + 1');",
      "const run = new Function('a', 'return a');",
      "const run = Function('return 1');",
      "spawn(process.execPath, ['-e', LAUNCHER_SOURCE], { stdio: 'ignore' });",
      'const SOURCE = String.raw`const helper = (${helper.toString()});`;',
      'const SOURCE = `\n  const a = 1;\n  const score = (${termScore.toString()});\n`;',
      "const script = new vm.Script('const a = 1; result = match(request)');",
      'runInNewContext(SOURCE, sandbox);',
    ];
    assert.deepEqual(
      seeded.map((line) => programsInStrings('seeded.ts', line).length),
      seeded.map(() => 1),
      seeded.map((line) => `${line}: ${programsInStrings('seeded.ts', line).join(', ')}`).join('\n'),
    );
    // Code that only looks alike passes.
    const alike = [
      'const key = `${location.uri.toString()}#${location.range.start.line}`;',
      'new Worker(entry.file, { execArgv: [], workerData: { eval: false } });',
      "spawn(process.execPath, [entry.file], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });",
      "runGit(['grep', '-e', pattern]);",
      'const retrieval = evaluate(answer);',
    ];
    assert.deepEqual(
      alike.flatMap((line) => programsInStrings('alike.ts', line)),
      [],
    );
  });
});
