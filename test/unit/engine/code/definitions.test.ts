/**
 * Definitions from tree-sitter (src/engine/code/definitions.ts): per language, the names, kinds,
 * owners and lines of what a small source file defines; then the bounds on what comes from
 * outside (size, time, count, name length) and that a grammar is loaded only when needed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { findDefinitions, MAX_DEFINITIONS, MAX_FILE_BYTES, MAX_NAME_LENGTH, type Definition } from '../../../../src/engine/code/definitions';
import { GRAMMARS, grammarFor } from '../../../../src/engine/code/grammars';

const ROOT = path.join(__dirname, '..', '..', '..', '..');

/** A definition as one line: `method cookie in res 9-12 @9` (kind, name, owner, lines, name's line). */
function summary(definition: Definition): string {
  const owner = definition.container === undefined ? '' : ` in ${definition.container}`;
  return `${definition.kind} ${definition.name}${owner} ${definition.line}-${definition.endLine} @${definition.nameLine}`;
}

async function definitionsOf(file: string, text: string): Promise<string[]> {
  const definitions = await findDefinitions(file, text);
  assert.ok(definitions, `${file} has a grammar`);
  return definitions.map(summary);
}

/** Source text from lines, so that a snippet's line numbers are the array's indexes + 1. */
const lines = (...text: string[]): string => `${text.join('\n')}\n`;

describe('code definitions: JavaScript', function () {
  const source = lines(
    "'use strict';", //                                   1
    "const DEFAULT_CHARSET = 'utf-8';", //                 2
    'var counter = 0;', //                                 3
    '', //                                                 4
    'function setHeader(res, name, value) {', //           5
    '  res.headers[name] = value;', //                     6
    '}', //                                                7
    '', //                                                 8
    'res.cookie = function cookie(name, value, options) {', // 9
    '  const opts = Object.assign({}, options);', //       10
    '  return this;', //                                   11
    '};', //                                               12
    '', //                                                 13
    'exports.render = function (view) {', //               14
    '  return view;', //                                   15
    '};', //                                               16
    '', //                                                 17
    'module.exports.json = (body) => JSON.stringify(body);', // 18
    '', //                                                 19
    "exports.version = '1.2.0';", //                       20
    '', //                                                 21
    'Session.prototype.touch = function () {', //          22
    '  this.lastSeen = Date.now();', //                    23
    '};', //                                               24
    '', //                                                 25
    'const helpers = {', //                                26
    '  escape(text) {', //                                 27
    '    return text;', //                                 28
    '  },', //                                             29
    '  trim: function (text) {', //                        30
    '    return text.trim();', //                          31
    '  },', //                                             32
    '};', //                                               33
    '', //                                                 34
    'class Router {', //                                   35
    '  routes = [];', //                                   36
    '  handle = (req) => req;', //                         37
    '', //                                                 38
    '  route(path) {', //                                  39
    '    function normalize(p) {', //                      40
    '      return p;', //                                  41
    '    }', //                                            42
    '    return normalize(path);', //                      43
    '  }', //                                              44
    '}', //                                                45
    '', //                                                 46
    'const parse = async (text) => {', //                  47
    '  return text;', //                                   48
    '};', //                                               49
  );

  it('finds declarations, member assignments (res., exports., module.exports., .prototype.), object-literal and class members', async function () {
    assert.deepEqual(await definitionsOf('lib/response.js', source), [
      'constant DEFAULT_CHARSET 2-2 @2',
      'variable counter 3-3 @3',
      'function setHeader 5-7 @5',
      'method cookie in res 9-12 @9',
      'function render 14-16 @14',
      'function json 18-18 @18',
      'variable version 20-20 @20',
      'method touch in Session 22-24 @22',
      'constant helpers 26-33 @26',
      'method escape in helpers 27-29 @27',
      'method trim in helpers 30-32 @30',
      'class Router 35-45 @35',
      'field routes in Router 36-36 @36',
      'method handle in Router 37-37 @37',
      'method route in Router 39-44 @39',
      'function normalize in route 40-42 @40',
      'function parse 47-49 @47',
    ]);
  });

  it('parses .mjs, .cjs and .jsx with the JavaScript grammar, JSX included', async function () {
    const jsx = lines('export function Badge({ count }) {', '  return <span className="badge">{count}</span>;', '}', 'export const Empty = () => <p />;');
    for (const file of ['a.mjs', 'a.cjs', 'a.jsx']) {
      assert.deepEqual(await definitionsOf(file, jsx), ['function Badge 1-3 @1', 'function Empty 4-4 @4'], file);
    }
  });
});

describe('code definitions: TypeScript', function () {
  const source = lines(
    'export const RETRY_LIMIT = 3;', //                    1
    '', //                                                 2
    'export interface Suggestion {', //                    3
    '  label: string;', //                                 4
    '  score(query: string): number;', //                  5
    '}', //                                                6
    '', //                                                 7
    'export type SuggestionsFor = (query: string) => Suggestion[];', // 8
    '', //                                                 9
    'export enum Source {', //                             10
    '  Local,', //                                         11
    '  Remote,', //                                        12
    '}', //                                                13
    '', //                                                 14
    'export abstract class Provider<T> {', //              15
    '  protected readonly cache = new Map<string, T>();', // 16
    '', //                                                 17
    '  constructor(private readonly name: string) {}', //  18
    '', //                                                 19
    '  abstract fetch(query: string): Promise<T[]>;', //   20
    '', //                                                 21
    '  get label(): string {', //                          22
    '    return this.name;', //                            23
    '  }', //                                              24
    '}', //                                                25
    '', //                                                 26
    'export namespace Ranking {', //                       27
    '  export function byScore(a: Suggestion, b: Suggestion): number {', // 28
    "    return b.score('') - a.score('');", //            29
    '  }', //                                              30
    '}', //                                                31
    '', //                                                 32
    'export const suggest: SuggestionsFor = (query) => [];', // 33
    '', //                                                 34
    'export function request<T>(url: string): Promise<T> {', // 35
    '  return fetch(url).then((r) => r.json() as Promise<T>);', // 36
    '}', //                                                37
  );

  it('finds interfaces, type aliases, enums, classes with their members, namespaces and functions', async function () {
    assert.deepEqual(await definitionsOf('src/suggest.ts', source), [
      'constant RETRY_LIMIT 1-1 @1',
      'interface Suggestion 3-6 @3',
      'field label in Suggestion 4-4 @4',
      'method score in Suggestion 5-5 @5',
      'type SuggestionsFor 8-8 @8',
      'enum Source 10-13 @10',
      'class Provider 15-25 @15',
      'field cache in Provider 16-16 @16',
      'method constructor in Provider 18-18 @18',
      'method fetch in Provider 20-20 @20',
      'method label in Provider 22-24 @22',
      'module Ranking 27-31 @27',
      'function byScore in Ranking 28-30 @28',
      'function suggest 33-33 @33',
      'function request 35-37 @35',
    ]);
    assert.deepEqual(await definitionsOf('src/suggest.mts', source), await definitionsOf('src/suggest.cts', source));
  });

  it('parses .tsx with the TSX grammar, and a type assertion in .ts with the TypeScript one', async function () {
    const tsx = lines(
      'interface BadgeProps { count: number }',
      '',
      'export function Badge({ count }: BadgeProps) {',
      '  return <span className="badge">{count}</span>;',
      '}',
    );
    assert.deepEqual(await definitionsOf('ui/Badge.tsx', tsx), ['interface BadgeProps 1-1 @1', 'field count in BadgeProps 1-1 @1', 'function Badge 3-5 @3']);
    // `<Options>raw` is a type assertion in .ts, and JSX in .tsx.
    const assertion = lines('export function options(raw: unknown) {', '  const parsed = <Options>raw;', '  return parsed;', '}');
    assert.deepEqual(await definitionsOf('src/options.ts', assertion), ['function options 1-4 @1']);
  });
});

describe('code definitions: Python', function () {
  const source = lines(
    '"""Order storage."""', //                             1
    'import json', //                                      2
    '', //                                                 3
    'MAX_ITEMS = 100', //                                  4
    'default_region = "eu"', //                            5
    '', //                                                 6
    '', //                                                 7
    'def load(path):', //                                  8
    '    with open(path) as f:', //                        9
    '        return json.load(f)', //                      10
    '', //                                                 11
    '', //                                                 12
    'class OrderStore:', //                                13
    '    """Keeps orders in memory."""', //                14
    '', //                                                 15
    '    TABLE = "orders"', //                             16
    '', //                                                 17
    '    def __init__(self, items=None):', //              18
    '        self.items = items or []', //                 19
    '', //                                                 20
    '    async def fetch(self, order_id):', //             21
    '        def matches(order):', //                      22
    '            return order["id"] == order_id', //       23
    '        return next(filter(matches, self.items), None)', // 24
    '', //                                                 25
    '    @property', //                                    26
    '    def size(self):', //                              27
    '        return len(self.items)', //                   28
    '', //                                                 29
    '', //                                                 30
    'async def sync_all(stores):', //                      31
    '    for store in stores:', //                         32
    '        await store.fetch(1)', //                     33
  );

  it('finds functions, classes and their methods (async too), nested functions and module-level constants', async function () {
    assert.deepEqual(await definitionsOf('shop/store.py', source), [
      'constant MAX_ITEMS 4-4 @4',
      'function load 8-10 @8',
      'class OrderStore 13-28 @13',
      'method __init__ in OrderStore 18-19 @18',
      'method fetch in OrderStore 21-24 @21',
      'function matches in fetch 22-23 @22',
      'method size in OrderStore 27-28 @27',
      'function sync_all 31-33 @31',
    ]);
  });
});

describe('code definitions: Go', function () {
  const source = lines(
    'package store', //                                    1
    '', //                                                 2
    'const Version = "1.4"', //                            3
    '', //                                                 4
    'var (', //                                            5
    '\tregistry = map[string]*Server{}', //                6
    ')', //                                                7
    '', //                                                 8
    'type Server struct {', //                             9
    '\tName string', //                                    10
    '\tport int', //                                       11
    '}', //                                                12
    '', //                                                 13
    'type Handler interface {', //                         14
    '\tServe(req *Request) error', //                      15
    '}', //                                                16
    '', //                                                 17
    'type Port int', //                                    18
    '', //                                                 19
    'type Stack[T any] struct{ items []T }', //            20
    '', //                                                 21
    'func NewServer(name string) *Server {', //            22
    '\treturn &Server{Name: name}', //                     23
    '}', //                                                24
    '', //                                                 25
    'func (s *Server) Start() error {', //                 26
    '\treturn nil', //                                     27
    '}', //                                                28
    '', //                                                 29
    'func (s Stack[T]) Len() int { return len(s.items) }', // 30
  );

  it('finds functions, methods with their receiver type (no *, no type parameters), struct, interface and other types', async function () {
    assert.deepEqual(await definitionsOf('store/server.go', source), [
      'constant Version 3-3 @3',
      'variable registry 6-6 @6',
      'struct Server 9-12 @9',
      'field Name in Server 10-10 @10',
      'field port in Server 11-11 @11',
      'interface Handler 14-16 @14',
      'method Serve in Handler 15-15 @15',
      'type Port 18-18 @18',
      'struct Stack 20-20 @20',
      'field items in Stack 20-20 @20',
      'function NewServer 22-24 @22',
      'method Start in Server 26-28 @26',
      'method Len in Stack 30-30 @30',
    ]);
  });
});

describe('code definitions: Java', function () {
  const source = lines(
    'package shop;', //                                    1
    '', //                                                 2
    'public class Cart<T> {', //                           3
    '    private final List<T> items;', //                 4
    '', //                                                 5
    '    public Cart() {', //                              6
    '        this.items = new ArrayList<>();', //          7
    '    }', //                                            8
    '', //                                                 9
    '    public void add(T item) {', //                    10
    '        items.add(item);', //                         11
    '    }', //                                            12
    '', //                                                 13
    '    interface Listener {', //                         14
    '        void changed(Cart<?> cart);', //              15
    '    }', //                                            16
    '', //                                                 17
    '    enum State { EMPTY, FULL }', //                   18
    '', //                                                 19
    '    record Line(String sku, int quantity) {}', //     20
    '}', //                                                21
  );

  it('finds classes, interfaces, enums, records, constructors, methods and fields', async function () {
    assert.deepEqual(await definitionsOf('src/main/java/shop/Cart.java', source), [
      'class Cart 3-21 @3',
      'field items in Cart 4-4 @4',
      'method Cart in Cart 6-8 @6',
      'method add in Cart 10-12 @10',
      'interface Listener in Cart 14-16 @14',
      'method changed in Listener 15-15 @15',
      'enum State in Cart 18-18 @18',
      'class Line in Cart 20-20 @20',
    ]);
  });
});

describe('code definitions: Rust', function () {
  const source = lines(
    'pub const MAX_SLOTS: usize = 8;', //                  1
    'static STARTED: AtomicBool = AtomicBool::new(false);', // 2
    '', //                                                 3
    'pub struct Pool<T> {', //                             4
    '    slots: Vec<T>,', //                               5
    '}', //                                                6
    '', //                                                 7
    'pub enum Mode { Fast, Careful }', //                  8
    '', //                                                 9
    'pub trait Drain {', //                                10
    '    fn drain(&mut self) -> usize;', //                11
    '}', //                                                12
    '', //                                                 13
    'impl<T: Clone> Pool<T> {', //                         14
    '    pub fn new() -> Self {', //                       15
    '        Pool { slots: Vec::new() }', //               16
    '    }', //                                            17
    '}', //                                                18
    '', //                                                 19
    'impl Drain for Pool<u8> {', //                        20
    '    fn drain(&mut self) -> usize { 0 }', //           21
    '}', //                                                22
    '', //                                                 23
    'mod tests {', //                                      24
    '    fn fixture() {}', //                              25
    '}', //                                                26
    '', //                                                 27
    'type Slots = Vec<u32>;', //                           28
  );

  it('finds functions, structs, enums, traits, impl methods with the impl type, consts, statics, modules and type aliases', async function () {
    assert.deepEqual(await definitionsOf('src/pool.rs', source), [
      'constant MAX_SLOTS 1-1 @1',
      'constant STARTED 2-2 @2',
      'struct Pool 4-6 @4',
      'field slots in Pool 5-5 @5',
      'enum Mode 8-8 @8',
      'trait Drain 10-12 @10',
      'method drain in Drain 11-11 @11',
      'method new in Pool 15-17 @15',
      'method drain in Pool 21-21 @21',
      'module tests 24-26 @24',
      'function fixture in tests 25-25 @25',
      'type Slots 28-28 @28',
    ]);
  });
});

describe('code definitions: C and C++', function () {
  const c = lines(
    '#include <stdio.h>', //                               1
    '#define BUFFER_SIZE 4096', //                         2
    '', //                                                 3
    'struct buffer {', //                                  4
    '    char *data;', //                                  5
    '    size_t len, cap;', //                             6
    '};', //                                               7
    '', //                                                 8
    'typedef struct buffer buffer_t;', //                  9
    '', //                                                 10
    'static int buffer_grow(struct buffer *b, size_t n)', // 11
    '{', //                                                12
    '    return 0;', //                                    13
    '}', //                                                14
    '', //                                                 15
    'const char **split_lines(const char *text, int *count) {', // 16
    '    return NULL;', //                                 17
    '}', //                                                18
  );

  it('parses .c and .h with the C++ grammar: functions (pointer-returning too), structs with bodies, typedefs, macros', async function () {
    const expected = [
      'constant BUFFER_SIZE 2-2 @2',
      'struct buffer 4-7 @4',
      'field data in buffer 5-5 @5',
      'field len in buffer 6-6 @6',
      // Two names of one declaration: neither owns the other.
      'field cap in buffer 6-6 @6',
      'type buffer_t 9-9 @9',
      'function buffer_grow 11-14 @11',
      'function split_lines 16-18 @16',
    ];
    assert.deepEqual(await definitionsOf('src/buffer.c', c), expected);
    assert.deepEqual(await definitionsOf('include/buffer.h', c), expected);
  });

  const cpp = lines(
    'namespace shop {', //                                 1
    '', //                                                 2
    'class Cart {', //                                     3
    'public:', //                                          4
    '    Cart();', //                                      5
    '    int size() const { return count_; }', //          6
    'private:', //                                         7
    '    int count_;', //                                  8
    '};', //                                               9
    '', //                                                 10
    'Cart::Cart() : count_(0) {}', //                      11
    '', //                                                 12
    'template <typename T>', //                            13
    'T larger(T a, T b) { return a > b ? a : b; }', //     14
    '', //                                                 15
    '}  // namespace shop', //                             16
    '', //                                                 17
    'enum class Shade { Light, Dark };', //                18
    'union value { int i; float f; };', //                 19
    '', //                                                 20
    'int shop::Cart::total() const {', //                  21
    '    return 0;', //                                    22
    '}', //                                                23
  );

  it('finds classes, inline and qualified (Foo::bar) methods with their class, namespaces as modules, enums and unions', async function () {
    assert.deepEqual(await definitionsOf('src/cart.cpp', cpp), [
      'module shop 1-16 @1',
      'class Cart in shop 3-9 @3',
      'method size in Cart 6-6 @6',
      'field count_ in Cart 8-8 @8',
      'method Cart in Cart 11-11 @11',
      'function larger in shop 14-14 @14',
      'enum Shade 18-18 @18',
      'struct value 19-19 @19',
      'field i in value 19-19 @19',
      'field f in value 19-19 @19',
      'method total in Cart 21-23 @21',
    ]);
    for (const file of ['a.cc', 'a.cxx', 'a.hpp', 'a.hh']) assert.equal(grammarFor(file), 'cpp', file);
  });
});

describe('code definitions: C#', function () {
  const source = lines(
    'namespace Shop.Orders', //                            1
    '{', //                                                2
    '    public class Order', //                           3
    '    {', //                                            4
    '        private readonly int _id;', //                5
    '        public string Name { get; set; }', //         6
    '', //                                                 7
    '        public Order(int id) { _id = id; }', //       8
    '', //                                                 9
    '        public decimal Total()', //                   10
    '        {', //                                        11
    '            return 0m;', //                           12
    '        }', //                                        13
    '    }', //                                            14
    '', //                                                 15
    '    public interface IPriced { decimal Total(); }', // 16
    '    public struct Money { }', //                      17
    '    public enum Status { Open, Closed }', //          18
    '    public record Receipt(string Id);', //            19
    '}', //                                                20
  );

  it('finds classes, structs, interfaces, enums, records, constructors, methods, properties and fields', async function () {
    assert.deepEqual(await definitionsOf('Orders/Order.cs', source), [
      'module Shop.Orders 1-20 @1',
      'class Order in Shop.Orders 3-14 @3',
      'field _id in Order 5-5 @5',
      'field Name in Order 6-6 @6',
      'method Order in Order 8-8 @8',
      'method Total in Order 10-13 @10',
      'interface IPriced in Shop.Orders 16-16 @16',
      'method Total in IPriced 16-16 @16',
      'struct Money in Shop.Orders 17-17 @17',
      'enum Status in Shop.Orders 18-18 @18',
      'class Receipt in Shop.Orders 19-19 @19',
    ]);
  });
});

describe('code definitions: Ruby', function () {
  const source = lines(
    'module Billing', //                                   1
    '  RATE = 0.2', //                                     2
    '', //                                                 3
    '  class Invoice < Base', //                           4
    '    def initialize(total)', //                        5
    '      @total = total', //                             6
    '    end', //                                          7
    '', //                                                 8
    '    def self.build(attrs)', //                        9
    '      new(attrs[:total])', //                         10
    '    end', //                                          11
    '  end', //                                            12
    '', //                                                 13
    '  def tax(amount)', //                                14
    '    amount * RATE', //                                15
    '  end', //                                            16
    'end', //                                              17
    '', //                                                 18
    'class Billing::Receipt', //                           19
    '  def print; end', //                                 20
    'end', //                                              21
    '', //                                                 22
    'def run; end', //                                     23
  );

  it('finds modules, classes (Foo::Bar too), def and def self.x as methods of their class or module, constants', async function () {
    assert.deepEqual(await definitionsOf('lib/billing.rb', source), [
      'module Billing 1-17 @1',
      'constant RATE in Billing 2-2 @2',
      'class Invoice in Billing 4-12 @4',
      'method initialize in Invoice 5-7 @5',
      'method build in Invoice 9-11 @9',
      'method tax in Billing 14-16 @14',
      'class Receipt in Billing 19-21 @19',
      'method print in Receipt 20-20 @20',
      'function run 23-23 @23',
    ]);
  });
});

describe('code definitions: PHP', function () {
  const source = lines(
    '<?php', //                                            1
    'namespace App\\Models;', //                           2
    '', //                                                 3
    'function slugify($text) {', //                        4
    '    return strtolower($text);', //                    5
    '}', //                                                6
    '', //                                                 7
    'interface HasName { public function name(): string; }', // 8
    '', //                                                 9
    'trait Greets {', //                                   10
    "    public function greet() { return 'hi'; }", //     11
    '}', //                                                12
    '', //                                                 13
    'class User implements HasName {', //                  14
    "    const TABLE = 'users';", //                       15
    '    private $name;', //                               16
    '', //                                                 17
    '    public function name(): string {', //            18
    '        return $this->name;', //                      19
    '    }', //                                            20
    '}', //                                                21
  );

  it('finds functions, classes, interfaces, traits, methods, properties and class constants', async function () {
    assert.deepEqual(await definitionsOf('app/Models/User.php', source), [
      'module App\\Models 2-2 @2',
      'function slugify 4-6 @4',
      'interface HasName 8-8 @8',
      'method name in HasName 8-8 @8',
      'trait Greets 10-12 @10',
      'method greet in Greets 11-11 @11',
      'class User 14-21 @14',
      'constant TABLE in User 15-15 @15',
      'field name in User 16-16 @16',
      'method name in User 18-20 @18',
    ]);
  });
});

describe('code definitions: bounds', function () {
  it('has no answer for a language without a grammar (undefined, not an empty list)', async function () {
    for (const file of ['README.md', 'Makefile', 'styles/site.css', 'config.ini', 'build.sh', 'Main.kt']) {
      assert.equal(await findDefinitions(file, 'x = 1\n'), undefined, file);
    }
    assert.deepEqual(await findDefinitions('Setup.PY', 'def main():\n    pass\n'), [{ name: 'main', kind: 'function', line: 1, endLine: 2, nameLine: 1 }]);
  });

  it('parses no file over the size limit, counted in bytes', async function () {
    const constants = (count: number) => Array.from({ length: count }, (_, i) => `K${i} = ${i}`).join('\n');
    assert.ok((await findDefinitions('big.py', constants(10)))?.length === 10);
    const oversized = `${constants(10)}\n# ${'x'.repeat(MAX_FILE_BYTES)}\n`;
    assert.deepEqual(await findDefinitions('big.py', oversized), []);
    // Under the limit in characters, over it in UTF-8 bytes.
    const wide = `${constants(10)}\n# ${'é'.repeat(MAX_FILE_BYTES / 2)}\n`;
    assert.ok(wide.length < MAX_FILE_BYTES);
    assert.deepEqual(await findDefinitions('big.py', wide), []);
    // Just under the limit: parsed.
    const under = `${constants(10)}\n# ${'x'.repeat(MAX_FILE_BYTES - 200)}\n`;
    assert.equal((await findDefinitions('big.py', under, { timeoutMs: 10_000 }))?.length, 10);
  });

  it('stops parsing at the time limit, and the next file is parsed from its start', async function () {
    const functions = Array.from({ length: 20_000 }, (_, i) => `function f${i}(a) { return a + ${i}; }`).join('\n');
    // The grammar loaded first, so that neither parse below pays for it.
    assert.deepEqual(await definitionsOf('first.js', 'function first() {}\n'), ['function first 1-1 @1']);
    const stoppedAt = performance.now();
    assert.deepEqual(await findDefinitions('slow.js', functions, { timeoutMs: 1 }), []);
    const stopped = performance.now() - stoppedAt;
    // A stopped parse would be resumed by the parser's next one if it were not reset.
    assert.deepEqual(await definitionsOf('next.js', 'function next() {}\n'), ['function next 1-1 @1']);
    const wholeAt = performance.now();
    assert.equal((await findDefinitions('slow.js', functions, { timeoutMs: 30_000 }))?.length, 20_000 > MAX_DEFINITIONS ? MAX_DEFINITIONS : 20_000);
    const whole = performance.now() - wholeAt;
    // Stopped early in the parse, not at its end: a small part of the whole parse's time.
    assert.ok(stopped < whole / 4, `stopped after ${stopped.toFixed(1)} ms, the whole parse took ${whole.toFixed(1)} ms`);
  });

  it('gives at most MAX_DEFINITIONS definitions, the first ones of the file', async function () {
    const source = Array.from({ length: MAX_DEFINITIONS + 500 }, (_, i) => `def f${i}():\n    pass`).join('\n');
    const definitions = (await findDefinitions('many.py', source, { timeoutMs: 30_000 })) ?? [];
    assert.equal(definitions.length, MAX_DEFINITIONS);
    assert.deepEqual([definitions[0].name, definitions[MAX_DEFINITIONS - 1].name], ['f0', `f${MAX_DEFINITIONS - 1}`]);
  });

  it('leaves out a name over MAX_NAME_LENGTH characters, and keeps one of exactly that length', async function () {
    const longest = 'a'.repeat(MAX_NAME_LENGTH);
    const tooLong = 'b'.repeat(MAX_NAME_LENGTH + 1);
    const source = lines(`def ${longest}():`, '    pass', `def ${tooLong}():`, '    pass', `class ${tooLong}(${longest}):`, '    def ok(self): pass');
    assert.deepEqual(await definitionsOf('long.py', source), [`function ${longest} 1-2 @1`, 'method ok 6-6 @6']);
  });

  it('still gives the definitions around a syntax error', async function () {
    const source = lines('export function before() {', '  return 1;', '}', 'class Broken {', '  method( {', '    return ;;', '}', 'export function after() {}');
    const definitions = await definitionsOf('broken.ts', source);
    assert.ok(definitions.includes('function before 1-3 @1'), definitions.join('\n'));
    assert.ok(definitions.includes('function after 8-8 @8'), definitions.join('\n'));
  });

  it('gives each of many concurrent calls, of one language or several, what a call alone gives', async function () {
    const files: [string, string][] = [
      ['a.py', 'def alpha():\n    pass\n'],
      ['b.py', 'class Beta:\n    def run(self): pass\n'],
      ['c.go', 'package c\n\nfunc Gamma() {}\n'],
      ['d.rb', 'def delta; end\n'],
      ['e.js', 'exports.epsilon = () => 1;\n'],
    ];
    const alone: (Definition[] | undefined)[] = [];
    for (const [file, text] of files) alone.push(await findDefinitions(file, text));
    const together = await Promise.all([...files, ...files].map(([file, text]) => findDefinitions(file, text)));
    assert.deepEqual(together, [...alone, ...alone]);
    assert.deepEqual(
      alone.map((definitions) => definitions?.map((d) => d.name)),
      [['alpha'], ['Beta', 'run'], ['Gamma'], ['delta'], ['epsilon']],
    );
  });
});

describe('code definitions: grammars', function () {
  it('maps each extension of the task to its grammar', function () {
    const expected: Record<string, string | undefined> = {
      'a.c': 'cpp',
      'a.h': 'cpp',
      'a.cc': 'cpp',
      'a.cpp': 'cpp',
      'a.cxx': 'cpp',
      'a.hpp': 'cpp',
      'a.hh': 'cpp',
      'a.js': 'javascript',
      'a.mjs': 'javascript',
      'a.cjs': 'javascript',
      'a.jsx': 'javascript',
      'a.ts': 'typescript',
      'a.mts': 'typescript',
      'a.cts': 'typescript',
      'a.d.ts': 'typescript',
      'a.tsx': 'tsx',
      'a.py': 'python',
      'a.go': 'go',
      'a.java': 'java',
      'a.rs': 'rust',
      'a.cs': 'c-sharp',
      'a.rb': 'ruby',
      'a.php': 'php',
      'a.css': undefined,
      'a.sh': undefined,
      ts: undefined,
      'dir.py/file': undefined,
    };
    for (const [file, grammar] of Object.entries(expected)) assert.equal(grammarFor(file), grammar, file);
  });

  it('loads the runtime and a grammar only when a file of that language is first parsed', function () {
    this.timeout(60_000);
    // A process of its own: this one may have loaded any grammar already.
    const script = `
      const { findDefinitions } = require('./src/engine/code/definitions');
      const { loadedLanguages } = require('./src/engine/code/grammars');
      const runtimeLoaded = () => Object.keys(require.cache).some((file) => file.includes('tree-sitter-wasm'));
      (async () => {
        const before = { loaded: loadedLanguages(), runtime: runtimeLoaded() };
        await findDefinitions('notes.md', '# notes');
        const unknown = { loaded: loadedLanguages(), runtime: runtimeLoaded() };
        await findDefinitions('a.py', 'def a(): pass');
        await findDefinitions('b.py', 'def b(): pass');
        const python = { loaded: loadedLanguages(), runtime: runtimeLoaded() };
        await findDefinitions('c.go', 'package c');
        process.stdout.write(JSON.stringify({ before, unknown, python, go: loadedLanguages() }));
      })();
    `;
    const output = execFileSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { cwd: ROOT, encoding: 'utf8' });
    assert.deepEqual(JSON.parse(output), {
      before: { loaded: [], runtime: false },
      unknown: { loaded: [], runtime: false },
      python: { loaded: ['python'], runtime: true },
      go: ['go', 'python'],
    });
  });

  it('has esbuild.mjs copy the runtime and every grammar the engine uses into dist/grammars', function () {
    const build = readFileSync(path.join(ROOT, 'esbuild.mjs'), 'utf8');
    const listed = /const grammars = \[([^\]]*)\]/.exec(build)?.[1];
    assert.ok(listed, 'esbuild.mjs lists the grammars');
    assert.deepEqual(
      [...listed.matchAll(/'([\w-]+)'/g)].map((m) => m[1]),
      [...GRAMMARS],
    );
    assert.match(build, /'tree-sitter\.wasm'/);
    assert.match(build, /dist\/grammars/);
  });
});
