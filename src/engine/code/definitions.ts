/**
 * The definitions in a source file, from a real parser: tree-sitter, with one query per language
 * (the tables below). What a file holds comes from outside, so everything is bounded: the size of
 * the file, the time spent parsing and querying it, the number of definitions and the length of a
 * name. A file with syntax errors still gives what tree-sitter recognised around them.
 */
import type { Node, QueryMatch } from '@vscode/tree-sitter-wasm';
import { grammarFor, loadGrammar, type Grammar, type GrammarId } from './grammars';

export type DefinitionKind =
  'function' | 'method' | 'class' | 'interface' | 'type' | 'enum' | 'struct' | 'trait' | 'module' | 'constant' | 'variable' | 'field';

export interface Definition {
  /** The defined name: `cookie`, `SuggestionsFor`, `request`. */
  name: string;
  kind: DefinitionKind;
  /**
   * Its owner: the class, impl type, Go receiver type, or the object of a member assignment (`res`
   * for `res.cookie = function…`, `Axios` for `Axios.prototype.request = …`). None for
   * `exports.x = …`: the module is not an owner.
   */
  container?: string;
  /** 1-based first line of the whole definition (decorators and doc comments not included). */
  line: number;
  /** 1-based last line of its body. */
  endLine: number;
  /** 1-based line of the name. */
  nameLine: number;
}

/** A larger file is not parsed: it is generated or data, and parsing it would take too long. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** What one file can give; past this, the rest of the file's definitions are left out. */
export const MAX_DEFINITIONS = 5000;
/** A longer name is not a name anyone looks up (minified or generated code): it is left out. */
export const MAX_NAME_LENGTH = 200;
const DEFAULT_TIMEOUT_MS = 500;

/**
 * How one language's definitions are found. The query's captures: a {@link DefinitionKind} on the
 * definition's node, `name` on its name, `container` on its owner where the code names it (a Go
 * receiver, `res.` in `res.cookie = …`, `Foo::` in `void Foo::bar()`), and `scope` on a node that
 * owns the functions it encloses without being a definition itself (a Rust `impl`, an object
 * literal), with `scope.name` on the name of that owner. Otherwise a definition's owner is the
 * innermost definition that encloses it. Where several patterns give the same name, the first wins.
 */
interface LanguageSpec {
  query: string;
  /** The name in a captured `name` node that is more than a name (a C declarator, `Foo::bar`). */
  name?: (node: Node) => { node: Node; container?: string } | undefined;
  /** Owners whose functions are methods (by default classes, interfaces, structs, traits, enums). */
  methodOwners?: readonly DefinitionKind[];
}

const FUNCTION_VALUE = '[(arrow_function) (function_expression) (generator_function)]';

/** JavaScript, and the part of TypeScript that is JavaScript. */
const JAVASCRIPT = `
(function_declaration name: (identifier) @name) @function
(generator_function_declaration name: (identifier) @name) @function
(class_declaration name: (_) @name) @class
(method_definition name: (_) @name) @method
(variable_declarator name: (identifier) @name value: ${FUNCTION_VALUE}) @function
(variable_declarator name: (identifier) @name value: (class)) @class
(pair key: [(property_identifier) (string)] @name value: ${FUNCTION_VALUE}) @method
(assignment_expression
  left: (member_expression object: [(identifier) (member_expression) (this)] @container property: (property_identifier) @name)
  right: ${FUNCTION_VALUE}) @function
(assignment_expression
  left: (member_expression object: [(identifier) (member_expression)] @container property: (property_identifier) @name)
  right: (class)) @class
((assignment_expression
  left: (member_expression object: [(identifier) (member_expression)] @container property: (property_identifier) @name)) @variable
  (#match? @container "^(module\\\\.)?exports$"))
(program (lexical_declaration "const" (variable_declarator name: (identifier) @name) @constant))
(program (export_statement declaration: (lexical_declaration "const" (variable_declarator name: (identifier) @name) @constant)))
(program (lexical_declaration (variable_declarator name: (identifier) @name) @variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @variable)))
(program (variable_declaration (variable_declarator name: (identifier) @name) @variable))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name) @variable)))
(variable_declarator name: (identifier) @scope.name value: (object) @scope)
(assignment_expression left: (_) @scope.name right: (object) @scope)
(pair key: (_) @scope.name value: (object) @scope)
`;

const TYPESCRIPT = `${JAVASCRIPT}
(public_field_definition name: (_) @name value: ${FUNCTION_VALUE}) @method
(abstract_class_declaration name: (_) @name) @class
(interface_declaration name: (_) @name) @interface
(type_alias_declaration name: (_) @name) @type
(enum_declaration name: (_) @name) @enum
(internal_module name: (_) @name) @module
(module name: (_) @name) @module
(function_signature name: (identifier) @name) @function
(abstract_method_signature name: (_) @name) @method
(method_signature name: (_) @name) @method
(property_signature name: (_) @name) @field
(public_field_definition name: (_) @name) @field
`;

const SPECS: Readonly<Record<GrammarId, LanguageSpec>> = {
  javascript: {
    query: `${JAVASCRIPT}
(field_definition property: (_) @name value: ${FUNCTION_VALUE}) @method
(field_definition property: (_) @name) @field
`,
  },
  typescript: { query: TYPESCRIPT },
  tsx: { query: TYPESCRIPT },
  python: {
    query: `
(function_definition name: (identifier) @name) @function
(class_definition name: (identifier) @name) @class
((module (expression_statement (assignment left: (identifier) @name) @constant)) (#match? @name "^[A-Z][A-Z0-9_]*$"))
`,
  },
  go: {
    query: `
(function_declaration name: (identifier) @name) @function
(method_declaration receiver: (parameter_list (parameter_declaration type: (_) @container)) name: (field_identifier) @name) @method
(type_spec name: (type_identifier) @name type: (struct_type)) @struct
(type_spec name: (type_identifier) @name type: (interface_type)) @interface
(type_spec name: (type_identifier) @name) @type
(type_alias name: (type_identifier) @name) @type
(source_file (const_declaration (const_spec name: (identifier) @name) @constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @variable)))
(field_declaration name: (field_identifier) @name) @field
(method_elem name: (field_identifier) @name) @method
`,
  },
  java: {
    query: `
(class_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class
(interface_declaration name: (identifier) @name) @interface
(annotation_type_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @method
(compact_constructor_declaration name: (identifier) @name) @method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @constant
`,
  },
  rust: {
    query: `
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @function
(struct_item name: (type_identifier) @name) @struct
(union_item name: (type_identifier) @name) @struct
(enum_item name: (type_identifier) @name) @enum
(trait_item name: (type_identifier) @name) @trait
(mod_item name: (identifier) @name) @module
(type_item name: (type_identifier) @name) @type
(const_item name: (identifier) @name) @constant
(static_item name: (identifier) @name) @constant
(macro_definition name: (identifier) @name) @function
(field_declaration name: (field_identifier) @name) @field
(impl_item type: (_) @scope.name) @scope
`,
  },
  cpp: {
    query: `
(function_definition declarator: (_) @name) @function
(struct_specifier name: (_) @name body: (_)) @struct
(union_specifier name: (_) @name body: (_)) @struct
(class_specifier name: (_) @name body: (_)) @class
(enum_specifier name: (_) @name body: (_)) @enum
(namespace_definition name: (_) @name) @module
(type_definition declarator: (type_identifier) @name) @type
(alias_declaration name: (type_identifier) @name) @type
(field_declaration declarator: [(field_identifier) (pointer_declarator) (reference_declarator) (array_declarator)] @name) @field
(preproc_def name: (identifier) @name) @constant
(preproc_function_def name: (identifier) @name) @function
`,
    name: declaratorName,
  },
  'c-sharp': {
    query: `
(class_declaration name: (identifier) @name) @class
(struct_declaration name: (identifier) @name) @struct
(interface_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(record_declaration name: (identifier) @name) @class
(delegate_declaration name: (identifier) @name) @type
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @method
(local_function_statement name: (identifier) @name) @function
(property_declaration name: (identifier) @name) @field
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @field
(namespace_declaration name: (_) @name) @module
(file_scoped_namespace_declaration name: (_) @name) @module
`,
  },
  ruby: {
    query: `
(method name: (_) @name) @function
(singleton_method object: (_) @container name: (_) @name) @method
(class name: [(constant) @name (scope_resolution scope: (_) @container name: (_) @name)]) @class
(module name: [(constant) @name (scope_resolution scope: (_) @container name: (_) @name)]) @module
(assignment left: (constant) @name) @constant
`,
    methodOwners: ['class', 'module'],
  },
  php: {
    query: `
(function_definition name: (name) @name) @function
(class_declaration name: (name) @name) @class
(interface_declaration name: (name) @name) @interface
(trait_declaration name: (name) @name) @trait
(enum_declaration name: (name) @name) @enum
(method_declaration name: (name) @name) @method
(property_declaration (property_element (variable_name (name) @name))) @field
(const_declaration (const_element (name) @name)) @constant
(namespace_definition name: (_) @name) @module
`,
  },
};

/** Every kind a definition can be (a query's capture names them; a stored table is checked against them). */
export const DEFINITION_KINDS: ReadonlySet<string> = new Set<DefinitionKind>([
  'function',
  'method',
  'class',
  'interface',
  'type',
  'enum',
  'struct',
  'trait',
  'module',
  'constant',
  'variable',
  'field',
]);
const METHOD_OWNERS: readonly DefinitionKind[] = ['class', 'interface', 'struct', 'trait', 'enum'];

/**
 * The definitions in a file, in the order they start; undefined when its language has no grammar.
 * A file over {@link MAX_FILE_BYTES}, or one whose parsing takes longer than `timeoutMs` (500 ms by
 * default), gives none; past the same deadline, the search of its tree gives what it found so far.
 */
export async function findDefinitions(path: string, text: string, options?: { timeoutMs?: number }): Promise<Definition[] | undefined> {
  const id = grammarFor(path);
  if (!id) return undefined;
  // A character is at least a byte: the exact count only for what may be just under the limit.
  if (text.length > MAX_FILE_BYTES || (text.length > MAX_FILE_BYTES / 3 && Buffer.byteLength(text, 'utf8') > MAX_FILE_BYTES)) return [];
  const grammar = await loadGrammar(id);
  const query = queryFor(grammar);
  const deadline = performance.now() + (options?.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  // Called by the parser and the query as they go: returning true stops them.
  const pastDeadline = (): boolean => performance.now() > deadline;
  // Parsing is synchronous: nothing else uses the language's one parser until this returns.
  const tree = parse(grammar, text, pastDeadline);
  if (!tree) return [];
  try {
    return definitionsIn(query.matches(tree.rootNode, { progressCallback: pastDeadline }), SPECS[id]);
  } finally {
    tree.delete();
  }
}

function parse(grammar: Grammar, text: string, pastDeadline: () => boolean) {
  let tree = null;
  try {
    tree = grammar.parser.parse(text, null, { progressCallback: pastDeadline });
  } finally {
    // A parse that was stopped would otherwise be resumed by the next one, on another file.
    if (!tree) grammar.parser.reset();
  }
  return tree;
}

/** Each grammar's compiled query: process-wide, as the grammars are (grammars.ts says why), one per grammar. */
const queries = new Map<GrammarId, InstanceType<Grammar['runtime']['Query']>>();

function queryFor(grammar: Grammar) {
  let query = queries.get(grammar.id);
  if (!query) {
    query = new grammar.runtime.Query(grammar.language, SPECS[grammar.id].query);
    queries.set(grammar.id, query);
  }
  return query;
}

interface Found {
  definition: Definition;
  start: number;
  end: number;
  /** The owner the code names (`res.` in `res.cookie = …`); undefined for `exports.`, `this.`, `self.`. */
  container: string | undefined;
  /** The pattern that found it: where two find the same name, the first wins. */
  pattern: number;
}

interface Owner {
  start: number;
  end: number;
  /** None for a definition whose name is left out (too long): it still owns what it encloses. */
  name: string | undefined;
  /** Whether the functions it encloses are its methods (a class's are, a function's are not). */
  methods: boolean;
}

function definitionsIn(matches: QueryMatch[], spec: LanguageSpec): Definition[] {
  const methodOwners = spec.methodOwners ?? METHOD_OWNERS;
  const byName = new Map<number, Found>();
  const scopes: Owner[] = [];
  for (const match of matches) {
    const capture = (name: string): Node | undefined => match.captures.find((c) => c.name === name)?.node;
    const scope = capture('scope');
    const scopeName = capture('scope.name');
    if (scope && scopeName) {
      const name = ownerName(scopeName.text);
      if (name) scopes.push({ start: scope.startIndex, end: scope.endIndex, name, methods: true });
      continue;
    }
    const kindCapture = match.captures.find((c) => DEFINITION_KINDS.has(c.name));
    const nameCapture = capture('name');
    if (!kindCapture || !nameCapture) continue;
    const resolved = spec.name ? spec.name(nameCapture) : { node: nameCapture };
    if (!resolved) continue;
    const node = kindCapture.node;
    const kind = kindCapture.name as DefinitionKind;
    const name = definedName(resolved.node);
    if (!name) {
      // Left out, but still the owner of what it encloses: a class's methods stay methods.
      scopes.push({ start: node.startIndex, end: node.endIndex, name: undefined, methods: methodOwners.includes(kind) });
      continue;
    }
    const previous = byName.get(resolved.node.startIndex);
    if (previous && previous.pattern <= match.patternIndex) continue;
    const containerNode = capture('container');
    byName.set(resolved.node.startIndex, {
      definition: {
        name,
        kind,
        line: node.startPosition.row + 1,
        endLine: lastLine(node),
        nameLine: resolved.node.startPosition.row + 1,
      },
      start: node.startIndex,
      end: node.endIndex,
      container: resolved.container ?? (containerNode ? ownerName(containerNode.text) : undefined),
      pattern: match.patternIndex,
    });
  }
  return withOwners([...byName.values()], scopes, methodOwners).slice(0, MAX_DEFINITIONS);
}

/**
 * Gives each definition its owner and, a function with an owner that has methods, the kind method:
 * a sweep over definitions and scopes in the order they start, with the ones still open on a stack.
 */
function withOwners(found: Found[], scopes: Owner[], methodOwners: readonly DefinitionKind[]): Definition[] {
  type Item = { owner: Owner; found?: undefined } | { owner?: undefined; found: Found };
  const items: Item[] = [...scopes.map((owner) => ({ owner })), ...found.map((f) => ({ found: f }))];
  const range = (item: Item) => item.owner ?? item.found;
  // Outer before inner; a scope before a definition of the same extent.
  items.sort((a, b) => range(a).start - range(b).start || range(b).end - range(a).end || (a.owner ? -1 : 0) - (b.owner ? -1 : 0));
  const open: Owner[] = [];
  const definitions: Definition[] = [];
  for (const item of items) {
    const { start, end } = range(item);
    // An open owner that ends first does not enclose this; nor does one of the same extent (`int a, b;`).
    while (open.length > 0 && (open[open.length - 1].end < end || (item.found && open[open.length - 1].start === start && open[open.length - 1].end === end)))
      open.pop();
    if (item.owner) {
      open.push(item.owner);
      continue;
    }
    const { definition, container } = item.found;
    const owner = open.length > 0 ? open[open.length - 1] : undefined;
    definition.container = container ?? owner?.name;
    if (definition.kind === 'function' && (container !== undefined || owner?.methods)) definition.kind = 'method';
    if (definition.container === undefined) delete definition.container;
    definitions.push(definition);
    open.push({ start, end, name: definition.name, methods: methodOwners.includes(definition.kind) });
  }
  return definitions;
}

/** The 1-based line a node ends on: the line before, when what ends it is a line break (a `#define`). */
function lastLine(node: Node): number {
  const { row, column } = node.endPosition;
  return column === 0 && row > node.startPosition.row ? row : row + 1;
}

/** The text of a name node as the name it defines: quotes of a string key dropped, spaces of `operator ==` made one. */
function definedName(node: Node): string | undefined {
  if (node.endIndex - node.startIndex > MAX_NAME_LENGTH * 4) return undefined;
  const name = node.text
    .replace(/^(['"`])(.*)\1$/s, '$2')
    .replace(/\s+/g, ' ')
    .trim();
  return name && name.length <= MAX_NAME_LENGTH ? name : undefined;
}

/**
 * An owner's name as written in code, made the name of the type or object it is: no pointer or
 * reference (`*Server`), no type arguments (`List[T]`, `Vec<T>`), no `.prototype`. None for what
 * is not an owner: the module (`exports`, `module.exports`), and `this` and `self` (the enclosing
 * definition is the owner).
 */
function ownerName(text: string): string | undefined {
  if (text.length > MAX_NAME_LENGTH * 4) return undefined;
  const name = text
    .replace(/^(?:[\s*&]+|'\w+\s*|(?:mut|dyn)\s+)+/, '')
    .replace(/^(['"`])(.*)\1$/s, '$2')
    .replace(/\s+/g, '')
    .replace(/[<[].*$/s, '')
    .replace(/\.prototype$/, '');
  if (!name || name.length > MAX_NAME_LENGTH || /^(?:(?:module\.)?exports|this|self)$/.test(name)) return undefined;
  return name;
}

/** The declared name in a C/C++ declarator (`*parse(…)`, `Foo::bar(…)`), with the class a qualified name names. */
function declaratorName(node: Node): { node: Node; container?: string } | undefined {
  let current: Node | null = node;
  for (let depth = 0; current && depth < 32; depth++) {
    if (/^(?:function|pointer|reference|array|parenthesized|attributed)_declarator$/.test(current.type)) {
      current = current.childForFieldName('declarator') ?? current.namedChild(current.namedChildCount - 1);
    } else if (current.type === 'qualified_identifier') {
      const name: Node | null = current.childForFieldName('name');
      if (name?.type !== 'qualified_identifier') {
        const scope = current.childForFieldName('scope');
        const container = scope ? ownerName(scope.text) : undefined;
        return name ? { node: name, ...(container ? { container } : {}) } : undefined;
      }
      current = name;
    } else {
      return { node: current };
    }
  }
  return undefined;
}
