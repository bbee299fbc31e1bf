/**
 * The tools' schemas: the JSON Schema the builders publish, the problems the checker finds (each
 * naming where), and the TypeScript types they give tool arguments (checked by the type-check).
 */
import assert from 'node:assert/strict';
import { array, boolean, integer, number, object, oneOf, optional, problems, string, unknown, type Infer } from '../../../../src/engine/tools/jsonSchema';

const args = object({
  repo: string('Repository name.'),
  limit: optional(integer('Page size.', { minimum: 1, maximum: 100 })),
  mode: optional(oneOf(['fast', 'thorough'])),
  ratio: optional(number()),
  tags: optional(array(string()), 'Labels to match.'),
  flags: optional(object({ verbose: boolean() })),
  extra: optional(unknown()),
});

describe('Tool schemas (JSON Schema)', function () {
  it('publishes plain JSON Schema: required from the properties not marked optional, no other properties', function () {
    assert.deepEqual(JSON.parse(JSON.stringify(args)), {
      type: 'object',
      properties: {
        repo: { type: 'string', description: 'Repository name.' },
        limit: { type: 'integer', description: 'Page size.', minimum: 1, maximum: 100 },
        mode: { type: 'string', enum: ['fast', 'thorough'] },
        ratio: { type: 'number' },
        tags: { type: 'array', items: { type: 'string' }, description: 'Labels to match.' },
        flags: { type: 'object', properties: { verbose: { type: 'boolean' } }, required: ['verbose'], additionalProperties: false },
        extra: {},
      },
      required: ['repo'],
      additionalProperties: false,
    });
    assert.deepEqual(Object.getOwnPropertySymbols(args.properties?.limit ?? {}), [], 'the optional mark stays out of the published schema');
  });

  it('accepts what fits, with optional properties left out or undefined', function () {
    assert.deepEqual(problems(args, { repo: 'a' }), []);
    assert.deepEqual(problems(args, { repo: 'a', limit: 100, mode: 'fast', ratio: 0.5, tags: [], flags: { verbose: true }, extra: [1, { x: null }] }), []);
    assert.deepEqual(problems(args, { repo: 'a', limit: undefined }), []);
  });

  it('names a missing required property with its type, and every unexpected one with what is taken', function () {
    assert.deepEqual(problems(args, {}), ['repo is required (a string)']);
    assert.deepEqual(problems(args, { repo: 'a', colour: 'red' }), ['colour is not expected (the arguments are repo, limit, mode, ratio, tags, flags, extra)']);
    assert.deepEqual(problems(args, { repo: 'a', flags: { verbose: false, loud: true } }), ['flags.loud is not expected (it takes verbose)']);
  });

  it('names a value of the wrong type, an integer that is a fraction, and an array item by its index', function () {
    assert.deepEqual(problems(args, { repo: 7 }), ['repo must be a string, not a number (7)']);
    assert.deepEqual(problems(args, { repo: 'a', limit: 2.5 }), ['limit must be an integer, not a number (2.5)']);
    assert.deepEqual(problems(args, { repo: 'a', limit: '10' }), ['limit must be an integer, not a string ("10")']);
    assert.deepEqual(problems(args, { repo: 'a', tags: ['x', 3, null] }), ['tags[1] must be a string, not a number (3)', 'tags[2] must be a string, not null']);
    assert.deepEqual(problems(args, { repo: 'a', flags: [] }), ['flags must be an object, not an array']);
    assert.deepEqual(problems(args, null), ['the value must be an object, not null']);
  });

  it('names values outside an enum or the bounds', function () {
    assert.deepEqual(problems(args, { repo: 'a', mode: 'slow' }), ['mode must be one of "fast", "thorough", not a string ("slow")']);
    assert.deepEqual(problems(args, { repo: 'a', limit: 0 }), ['limit must be at least 1, not 0']);
    assert.deepEqual(problems(args, { repo: 'a', limit: 101 }), ['limit must be at most 100, not 101']);
  });

  it('lists every problem, not only the first', function () {
    assert.equal(problems(args, { limit: 'x', colour: 1 }).length, 3);
  });

  // The @ts-expect-error lines are checked by `npm run typecheck` (tsconfig includes the tests); at
  // run time the validator must agree with the type on the same values.
  it('gives the arguments a strict TypeScript type that the validator agrees with', function () {
    type Args = Infer<typeof args>;
    const full: Args = { repo: 'a', limit: 1, mode: 'thorough', tags: ['t'], flags: { verbose: true } };
    const least: Args = { repo: 'a' };
    // @ts-expect-error: repo is required
    const missing: Args = { limit: 1 };
    // @ts-expect-error: mode is one of two strings
    const wrongMode: Args = { repo: 'a', mode: 'slow' };
    // @ts-expect-error: no other properties
    const extra: Args = { repo: 'a', colour: 'red' };
    assert.deepEqual(
      [full, least].map((value) => problems(args, value)),
      [[], []],
    );
    for (const refused of [missing, wrongMode, extra]) assert.notDeepEqual(problems(args, refused), [], JSON.stringify(refused));
  });
});
