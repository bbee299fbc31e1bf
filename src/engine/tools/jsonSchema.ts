/**
 * The tools' argument and result schemas as plain JSON Schema (the form `tools/list` publishes),
 * built with small typed helpers so that TypeScript knows the type of the values each schema
 * accepts, and a checker for the same subset whose messages name the argument that is wrong.
 *
 * The subset: string, integer, number, boolean, array (with items), object (with properties,
 * required and additionalProperties: false), enum, minimum and maximum, and `{}` for any value.
 */
import { echo } from '../http/echo';

/** A JSON Schema of the subset above. */
export interface JsonSchema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  description?: string;
  enum?: ReadonlyArray<string | number>;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: false;
}

/** Type-only key: the type of the values a schema accepts. Never present at run time. */
declare const accepts: unique symbol;
/** Run-time mark of a property that may be left out; a symbol, so JSON.stringify skips it. */
const OPTIONAL: unique symbol = Symbol('optional');

/** A JSON Schema that accepts values of type T. */
export type Schema<T> = JsonSchema & { readonly [accepts]: T };
/** A property of an object schema that may be left out. */
export type Optional<T> = Schema<T> & { readonly [OPTIONAL]: true };

/** The type of the values a schema accepts. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

type Shape = Record<string, Schema<unknown>>;
type RequiredKeys<P extends Shape> = { [K in keyof P]: P[K] extends { readonly [OPTIONAL]: true } ? never : K }[keyof P];
type OptionalKeys<P extends Shape> = Exclude<keyof P, RequiredKeys<P>>;
/** Written out as one object type so editors show `{ repo: string; path?: string }`. */
type ObjectOf<P extends Shape> = { [K in RequiredKeys<P>]: Infer<P[K]> } & { [K in OptionalKeys<P>]?: Infer<P[K]> } extends infer O
  ? { [K in keyof O]: O[K] }
  : never;

interface Bounds {
  minimum?: number;
  maximum?: number;
}

function schema<T>(json: JsonSchema): Schema<T> {
  return json as Schema<T>;
}

function described(json: JsonSchema, description: string | undefined): JsonSchema {
  return description === undefined ? json : { ...json, description };
}

export function string(description?: string): Schema<string> {
  return schema(described({ type: 'string' }, description));
}

/** One of the given strings. */
export function oneOf<const V extends string>(values: readonly V[], description?: string): Schema<V> {
  return schema(described({ type: 'string', enum: values }, description));
}

export function integer(description?: string, bounds: Bounds = {}): Schema<number> {
  return schema(described({ type: 'integer', ...bounds }, description));
}

export function number(description?: string, bounds: Bounds = {}): Schema<number> {
  return schema(described({ type: 'number', ...bounds }, description));
}

export function boolean(description?: string): Schema<boolean> {
  return schema(described({ type: 'boolean' }, description));
}

export function array<T>(items: Schema<T>, description?: string): Schema<T[]> {
  return schema(described({ type: 'array', items }, description));
}

/** Any JSON value (the schema `{}`). */
export function unknown(): Schema<unknown> {
  return schema({});
}

/** An object with exactly these properties; those wrapped in `optional` may be left out. */
export function object<P extends Shape>(properties: P, description?: string): Schema<ObjectOf<P>> {
  const required = Object.keys(properties).filter((key) => !(OPTIONAL in properties[key]));
  const plain: Record<string, JsonSchema> = {};
  for (const [key, property] of Object.entries(properties)) {
    const { [OPTIONAL]: _mark, ...json } = property as Optional<unknown>;
    plain[key] = json;
  }
  const json: JsonSchema = { type: 'object', properties: plain, ...(required.length ? { required } : {}), additionalProperties: false };
  return schema(described(json, description));
}

/** Marks an object property as one that may be left out; with a description, replaces the schema's own. */
export function optional<T>(property: Schema<T>, description?: string): Optional<T> {
  return { ...described(property, description), [OPTIONAL]: true } as Optional<T>;
}

/**
 * What is wrong with a value for a schema: one line per problem, each naming where (`limit`,
 * `repos[0]`, `pagination.totalCount`); empty when the value fits. A property set to `undefined`
 * counts as absent, as it does once the value is JSON.
 */
export function problems(json: JsonSchema, value: unknown, where = ''): string[] {
  const name = where || 'the value';
  if (value === undefined) return [`${name} is missing`];
  if (json.type !== undefined && !hasType(json.type, value)) {
    return [`${name} must be ${article(json.type)}, not ${describe(value)}`];
  }
  if (json.enum && !json.enum.includes(value as string | number)) {
    return [`${name} must be one of ${json.enum.map((option) => JSON.stringify(option)).join(', ')}, not ${describe(value)}`];
  }
  if (typeof value === 'number') {
    if (json.minimum !== undefined && value < json.minimum) return [`${name} must be at least ${json.minimum}, not ${value}`];
    if (json.maximum !== undefined && value > json.maximum) return [`${name} must be at most ${json.maximum}, not ${value}`];
  }
  if (Array.isArray(value) && json.items) {
    const items = json.items;
    return value.flatMap((item: unknown, index) => problems(items, item, `${where}[${index}]`));
  }
  if (json.type === 'object') return objectProblems(json, value as Record<string, unknown>, where);
  return [];
}

function objectProblems(json: JsonSchema, value: Record<string, unknown>, where: string): string[] {
  const prefix = where ? `${where}.` : '';
  const properties = json.properties ?? {};
  const found: string[] = [];
  for (const key of json.required ?? []) {
    if (value[key] === undefined) found.push(`${prefix}${key} is required${properties[key]?.type ? ` (${article(properties[key].type)})` : ''}`);
  }
  for (const [key, item] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (!property) {
      if (json.additionalProperties === false) {
        const known = Object.keys(properties);
        found.push(`${prefix}${key} is not expected${known.length ? ` (${where ? 'it takes' : 'the arguments are'} ${known.join(', ')})` : ''}`);
      }
      continue;
    }
    if (item !== undefined) found.push(...problems(property, item, `${prefix}${key}`));
  }
  return found;
}

function hasType(type: NonNullable<JsonSchema['type']>, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

function article(type: string): string {
  return type === 'integer' || type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`;
}

/** `a string ("ten")`, `a number (1.5)`, `null`: what was sent, briefly. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${article(typeof value)} (${echo(value)})`;
}
