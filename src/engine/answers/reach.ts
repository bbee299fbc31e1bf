/**
 * How the code that answers is reached: the places that use the leading definition's name — callers
 * in the implementation (each named by the definition it sits in), and the tests and docs that
 * mention it — found with one whole-word search of the repository.
 */
import { kindOfPath, type FileKind } from '../code/fileKinds';
import type { Definition } from '../code/definitions';
import type { SearchTarget } from '../search/grepResult';
import { readTargetText, splitLines } from '../repo/blocks';
import type { ToolContext } from '../repo/context';
import { grepTarget } from '../repo/grep';
import { definitionsOf, kindOf } from '../repo/retrieval';
import { codeOf, IMPORT_LINE } from '../repo/spanRanking';

export interface Use {
  path: string;
  line: number;
  text: string;
  kind: FileKind;
  /** The definition the use sits in, where the parser knows it. */
  within?: Definition;
}

export interface Reach {
  callers: Use[];
  /** Declarations of the same name elsewhere (overrides, implementations of an interface's method): not uses. */
  implementations: Use[];
  tests: Use[];
  docs: Use[];
}

/** What a use can sit in, as the answer names it (a variable's initialiser is not a place). */
const ENCLOSING: ReadonlySet<Definition['kind']> = new Set(['function', 'method', 'class', 'struct', 'trait', 'module', 'interface']);
const MAX_CALLERS = 3;
const MAX_SEE_ALSO = 3;
const LINES_PER_FILE = 5;
const MAX_FILE_BYTES = 1024 * 1024;
/** A line that declares a name rather than using it. */
const DECLARING = /(\b(def|func|fn|function|class|interface|struct|trait|enum|type|module|sub)\s+[\w$.*]*|^\s*func\s*\([^)]*\)\s*)$/;

/** Where `definition` (in `path`) is used, apart from its own lines. */
export async function findReach(context: ToolContext, target: SearchTarget, path: string, definition: Definition): Promise<Reach> {
  const name = reachedAs(definition);
  const result = await grepTarget(context, target, {
    patterns: [name],
    syntax: 'fixed',
    caseSensitive: true,
    wholeWord: true,
    linesPerFile: LINES_PER_FILE,
    what: `The name ${name}`,
  });
  const reach: Reach = { callers: [], implementations: [], tests: [], docs: [] };
  for (const [usePath, lines] of result.files) {
    const kind = kindOfPath(usePath);
    for (const { line, text } of lines) {
      if (usePath === path && line >= definition.line && line <= definition.endLine) continue;
      // An import names it without reaching it.
      if (IMPORT_LINE.test(text)) continue;
      // Code calls a function; a test or a doc may just name it.
      if (!isUse(text, name, CALLABLE.has(definition.kind) && kind === 'implementation', qualifiersOf(definition, path))) continue;
      const use: Use = { path: usePath, line, text: text.trim(), kind };
      if (kind === 'implementation') {
        if (reach.callers.length < MAX_CALLERS * 4) reach.callers.push(use);
      } else if (kind === 'test' || kind === 'example') {
        if (!reach.tests.some((known) => known.path === usePath) && reach.tests.length < MAX_SEE_ALSO) reach.tests.push(use);
      } else if (kind === 'documentation') {
        if (!reach.docs.some((known) => known.path === usePath) && reach.docs.length < MAX_SEE_ALSO) reach.docs.push(use);
      }
    }
  }
  const placed = await placeCallers(context, target, reach.callers, definition.name);
  reach.callers = placed.callers;
  reach.implementations = placed.implementations;
  return reach;
}

const CALLABLE: ReadonlySet<Definition['kind']> = new Set(['function', 'method']);
/** Characters of a line read for a use. */
const MAX_USE_LINE = 4096;

/**
 * The qualifiers a call of a definition without an owner may carry (`unit::connect(`, `utils.parse(`):
 * its module, by its file's name. Undefined for a method: any receiver may be of its type.
 */
function qualifiersOf(definition: Definition, path: string): ReadonlySet<string> | undefined {
  if (definition.container) return undefined;
  const file = path.slice(path.lastIndexOf('/') + 1);
  const stem = file.includes('.') ? file.slice(0, file.indexOf('.')) : file;
  const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')).split('/').pop() : undefined;
  return new Set([stem, ...(stem === 'mod' || stem === 'index' || stem === '__init__' ? [folder ?? ''] : [])]);
}

/**
 * A line that uses the definition in its code (not in a string or comment), other than by declaring
 * it (`def name(`, `function name(`): where `mustCall`, a function or method is called (`name(`,
 * `.name(`) or passed as `.name`; anything else is named. A free function called through another
 * name (`tls.connect(` for `connect` of unit.rs) is another function: with `qualifiers`, only those
 * (its module) may stand before it.
 */
function isUse(text: string, name: string, mustCall: boolean, qualifiers?: ReadonlySet<string>): boolean {
  // A use is in a line's first few kilobytes, or it is not shown anyway.
  const code = codeOf(text.slice(0, MAX_USE_LINE));
  for (let at = code.indexOf(name); at >= 0; at = code.indexOf(name, at + 1)) {
    const before = code[at - 1] ?? '';
    const after = code.slice(at + name.length, at + name.length + 16);
    if (/[\w$]/.test(before) || /^[\w$]/.test(after)) continue;
    if (DECLARING.test(`${code.slice(Math.max(0, at - 80), at).trimEnd()} `)) continue;
    const qualifier = /([\w$]+)\s*(?:\.|::)\s*$/.exec(code.slice(Math.max(0, at - 80), at))?.[1];
    if (qualifiers && qualifier !== undefined && !qualifiers.has(qualifier)) continue;
    if (!mustCall || /^\s*(\(|::new\b|\.new\b)/.test(after) || before === '.') return true;
  }
  return false;
}

/** Names a class gives its constructor: code reaches it by the class's name (`new Session(`, `Session(`, `Foo::new(`). */
const CONSTRUCTORS = new Set(['constructor', '__init__', 'initialize', 'new', '__construct']);

/** The name code uses to reach a definition. */
function reachedAs(definition: Definition): string {
  return CONSTRUCTORS.has(definition.name) && definition.container ? definition.container : definition.name;
}

/**
 * The callers, one per file (its first call), each with the definition it sits in; generated files
 * dropped. A line that declares a definition of the same name (`public void write(…)` of another
 * class, an override, an implementation) is no use of it: those are listed apart.
 */
async function placeCallers(
  context: ToolContext,
  target: SearchTarget,
  uses: readonly Use[],
  name: string,
): Promise<{ callers: Use[]; implementations: Use[] }> {
  const callers: Use[] = [];
  const implementations: Use[] = [];
  const called = new Set<string>();
  const declared = new Set<string>();
  for (const use of uses) {
    if (callers.length >= MAX_CALLERS && implementations.length >= MAX_CALLERS) break;
    if (called.has(use.path) && declared.has(use.path)) continue;
    const blob = await readTargetText(context, target, use.path, MAX_FILE_BYTES).catch(() => undefined);
    if (!blob || blob.binary) continue;
    // What the answer's files are, by the same attributes and the same kept definitions.
    if ((await kindOf(context, target, use.path, splitLines(blob.text))) !== 'implementation') continue;
    const definitions = (await definitionsOf(context, target, use.path, blob.text)) ?? [];
    const declaration = definitions.find((definition) => definition.name === name && definition.nameLine === use.line);
    if (declaration) {
      if (!declared.has(use.path) && implementations.length < MAX_CALLERS) implementations.push({ ...use, within: declaration });
      declared.add(use.path);
      continue;
    }
    if (called.has(use.path) || callers.length >= MAX_CALLERS) continue;
    called.add(use.path);
    const within = definitions
      .filter((definition) => ENCLOSING.has(definition.kind) && definition.line <= use.line && definition.endLine >= use.line)
      .sort((a, b) => a.endLine - a.line - (b.endLine - b.line))[0];
    callers.push({ ...use, ...(within ? { within } : {}) });
  }
  return { callers, implementations };
}
