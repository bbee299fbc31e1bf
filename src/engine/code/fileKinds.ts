/**
 * What a file is, for ranking and for the shape of an answer: the implementation answers a question;
 * tests, examples and docs are "see also"; changelogs, generated, bundled and vendored files never
 * lead. Decided by the repository's own git attributes (`linguist-generated`, `linguist-vendored`,
 * `linguist-documentation`) first, then by conventional paths and names, then by the text itself
 * (minified code is a few very long lines). Pure functions.
 */

export type FileKind = 'implementation' | 'configuration' | 'test' | 'example' | 'documentation' | 'changelog' | 'generated' | 'bundled' | 'vendored';

/** What the repository's `.gitattributes` say of a path: undefined when they say nothing. */
export interface LinguistAttributes {
  generated?: boolean;
  vendored?: boolean;
  documentation?: boolean;
}

/** Kinds that may lead an answer: the code that does the work, and the settings that steer it. */
export const LEADING_KINDS: ReadonlySet<FileKind> = new Set(['implementation', 'configuration']);

/**
 * How much a kind's file counts in ranking, next to an implementation file: a test that mentions every
 * word of the question should still come after the code it tests.
 */
export const KIND_WEIGHT: Readonly<Record<FileKind, number>> = {
  implementation: 1,
  configuration: 0.5,
  test: 0.3,
  example: 0.3,
  documentation: 0.25,
  changelog: 0.05,
  generated: 0.05,
  bundled: 0.03,
  vendored: 0.03,
};

const VENDORED_DIRS = new Set([
  'vendor',
  'vendors',
  'third_party',
  'third-party',
  'thirdparty',
  'node_modules',
  'bower_components',
  'external',
  'extern',
  'deps',
]);
const BUNDLED_DIRS = new Set(['dist', 'build', 'out', 'bundle', 'bundles', 'umd', 'min', 'target', '.next']);
const TEST_DIRS = new Set([
  'test',
  'tests',
  '__tests__',
  '__test__',
  'spec',
  'specs',
  'testing',
  'testdata',
  'test_data',
  'fixtures',
  '__fixtures__',
  '__mocks__',
  'e2e',
  'integration-tests',
  'testutil',
  'testutils',
]);
const EXAMPLE_DIRS = new Set([
  'example',
  'examples',
  'sample',
  'samples',
  'demo',
  'demos',
  'benchmark',
  'benchmarks',
  'bench',
  'playground',
  'tutorial',
  'tutorials',
]);
const DOC_DIRS = new Set(['doc', 'docs', 'documentation', 'man', 'website', 'site']);

const CHANGELOG = /^(change[-_]?log|changes|history|news|releases?|release[-_]notes|whatsnew)(\.[a-z0-9]+)?$/i;
const DOC_NAME =
  /^(readme|contributing|authors|contributors|code_of_conduct|security|support|governance|maintainers|license|licence|copying|notice|patents)(\.[a-z0-9]+)?$/i;
const DOC_EXTENSION = /\.(md|markdown|mdx|rst|adoc|asciidoc|txt|textile|rdoc|pod|org|[1-9])$/i;
const TEST_NAME =
  /(^test_.*\.py$|_test\.(py|go|rb|exs?|dart|c|cc|cpp)$|\.(test|spec|e2e-spec|cy)\.[cm]?[jt]sx?$|_spec\.rb$|^conftest\.py$|(Test|Tests|IT|Spec)\.(java|kt|scala|cs|swift|php)$|^tests?\.(rs|py|js|ts)$)/;
/** Code a generator writes (protobuf, designers, gen tools), by its name. */
const GENERATOR_OUTPUT =
  /(\.pb\.go$|\.pb\.(cc|h)$|_pb2(_grpc)?\.pyi?$|\.generated\.[a-z]+$|\.g\.(dart|cs)$|\.designer\.cs$|^zz_generated|_generated\.go$|\.gen\.go$|\.snap$)/i;
/** What package managers write. */
const LOCK_FILE = /^(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|go\.sum|poetry\.lock|Gemfile\.lock|composer\.lock|npm-shrinkwrap\.json)$/i;
const BUNDLED_NAME = /([.-]min\.(js|css|mjs)$|\.bundle\.[cm]?js$|\.(js|css)\.map$|-bundle\.[cm]?js$)/;
const SOURCE_EXTENSION =
  /\.(c|h|cc|cpp|cxx|hpp|hh|cs|go|java|kt|scala|js|jsx|mjs|cjs|ts|tsx|mts|cts|py|pyi|rb|rs|php|swift|m|mm|lua|ex|exs|erl|hs|clj|dart|sh)$/i;
const CONFIGURATION_EXTENSION = /\.(json|jsonc|json5|ya?ml|toml|ini|cfg|conf|properties|env|xml|plist|gradle|cmake|mk|editorconfig|lock)$/i;
const CONFIGURATION_NAME = /^(makefile|dockerfile|gemfile|rakefile|cmakelists\.txt|\.[a-z0-9_.-]+rc)$/i;

/**
 * The kind a path has by convention alone (folders, names, extensions). Test folders win over example
 * folders (`examples/foo/test/x.js` is a test), vendored and bundled folders over everything.
 */
export function kindOfPath(path: string): FileKind {
  const parts = path.split('/');
  const name = parts[parts.length - 1] ?? '';
  const folders = parts.slice(0, -1).map((folder) => folder.toLowerCase());
  if (folders.some((folder) => VENDORED_DIRS.has(folder))) return 'vendored';
  if (GENERATOR_OUTPUT.test(name) || LOCK_FILE.test(name)) return 'generated';
  if (BUNDLED_NAME.test(name) || folders.some((folder) => BUNDLED_DIRS.has(folder))) return 'bundled';
  if (CHANGELOG.test(name)) return 'changelog';
  if (TEST_NAME.test(name) || folders.some((folder) => TEST_DIRS.has(folder)) || isTestSourceSet(folders)) return 'test';
  if (folders.some((folder) => EXAMPLE_DIRS.has(folder))) return 'example';
  if (CONFIGURATION_NAME.test(name)) return 'configuration';
  // Code in a docs folder is code (cobra's `doc/` package writes man pages); its prose is documentation.
  if (DOC_NAME.test(name) || DOC_EXTENSION.test(name) || (folders.some((folder) => DOC_DIRS.has(folder)) && !SOURCE_EXTENSION.test(name)))
    return 'documentation';
  if (CONFIGURATION_EXTENSION.test(name)) return 'configuration';
  return 'implementation';
}

/** `src/test/…` (Maven, Gradle) and `…/test/java/…`. */
function isTestSourceSet(folders: readonly string[]): boolean {
  return folders.some((folder, index) => folder === 'src' && folders[index + 1]?.startsWith('test') === true);
}

/** A line this long is written by a tool, not a person. */
const MINIFIED_LINE = 1_000;
/** Average characters per line above which a file is minified (or one long data literal). */
const MINIFIED_AVERAGE = 300;

/** Whether a text looks minified or bundled: very long lines, on average long ones. */
export function looksMinified(lines: readonly string[]): boolean {
  if (lines.length === 0) return false;
  let total = 0;
  let longest = 0;
  for (const line of lines) {
    total += line.length;
    if (line.length > longest) longest = line.length;
  }
  return longest >= MINIFIED_LINE && total / lines.length >= MINIFIED_AVERAGE;
}

/** Markers a generator leaves in its output's first lines. */
const GENERATED_MARKER =
  /(code generated .* do not edit|@generated|auto-?generated|this file (is|was) (automatically )?generated|do not (edit|modify) (this file|manually|by hand))/i;
const MARKER_LINES = 5;
/** A marker is near a line's start: only so much of each line is read for it. */
const MARKER_LINE_CHARS = 500;

/**
 * The kind of a file with what is known of it: its git attributes (a `linguist-*` attribute set or
 * unset overrides the path's verdict), then its path, then its first lines and line lengths.
 */
export function fileKind(path: string, attributes: LinguistAttributes = {}, lines?: readonly string[]): FileKind {
  if (attributes.vendored === true) return 'vendored';
  if (attributes.generated === true) return 'generated';
  if (attributes.documentation === true) return 'documentation';
  let kind = kindOfPath(path);
  // `linguist-vendored=false` on `deps/` or `-linguist-documentation` on `docs/`: the repository says it is code.
  if (
    (kind === 'vendored' && attributes.vendored === false) ||
    (kind === 'generated' && attributes.generated === false) ||
    (kind === 'documentation' && attributes.documentation === false)
  ) {
    kind = 'implementation';
  }
  if (kind !== 'implementation' && kind !== 'configuration') return kind;
  if (lines && attributes.generated !== false) {
    if (lines.slice(0, MARKER_LINES).some((line) => GENERATED_MARKER.test(line.slice(0, MARKER_LINE_CHARS)))) return 'generated';
    if (looksMinified(lines)) return 'bundled';
  }
  return kind;
}
