/**
 * What each definition is, in the words a description of it uses: its name split into words, its
 * documentation, its parameters, and the identifiers and strings of its body (camelCase and
 * snake_case split, each word stemmed as search stems it); and a BM25 ranking of definitions for a
 * description, each of its words weighted by its rarity across the repository's definitions (not
 * across files: a word every file holds once may still say which function it is), as the commit's
 * symbol table counted them (`wordsOfFile` is how it reads them). Pure.
 */
import type { Definition } from '../code/definitions';
import type { DefinitionWords } from '../code/definitionWordCounts';
import { stem } from '../search/ranking';
import { documentationStart, headEnd } from './definitionExtent';

/** A definition's lines as the ranking reads them. */
export interface DefinitionSource {
  name: string;
  /** Its owner's name (`res` of `res.cookie`), when it has one. */
  container?: string;
  /** The lines of its documentation (above it), signature and body. */
  documentation: readonly string[];
  body: readonly string[];
}

/** How many times a word in a name, in documentation and in a body counts (a name says what it is). */
const NAME_COUNT = 3;
const DOCUMENTATION_COUNT = 2;
const BODY_COUNT = 1;
const K1 = 1.2;
const B = 0.75;
/** Characters of a line read for its words. */
const MAX_LINE = 1_000;
/** Lines of a body read for its words. */
const MAX_BODY_LINES = 400;

/**
 * Lines' words, kept: the files an answer reads are the ones the next question about the same code
 * reads. Process-wide on purpose: a memo of a pure function of the text (the same words whoever
 * asks), bounded (cleared past `WORDS_KEPT`), holding nothing an engine could tell apart.
 */
const wordsKept = new Map<string, readonly string[]>();
const WORDS_KEPT = 50_000;

/** The stemmed words of a text: identifiers split into their parts (`parseConfigFile` → pars, config, file). */
export function wordsOf(text: string): readonly string[] {
  const kept = wordsKept.get(text);
  if (kept) return kept;
  const words = splitWords(text);
  if (wordsKept.size >= WORDS_KEPT) wordsKept.clear();
  wordsKept.set(text, words);
  return words;
}

/** The words of a line as `wordsOf` has them, not kept (the lines of a whole commit would only push out the ones worth keeping). */
function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const token of text.slice(0, MAX_LINE).match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) {
    for (const part of token.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? []) {
      if (part.length >= 2 && !/^[0-9]+$/.test(part)) words.push(stem(part));
    }
  }
  return words;
}

/** A definition's words with how often each counts. */
export function definitionWords(definition: DefinitionSource, split: (text: string) => readonly string[] = wordsOf): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (words: readonly string[], times: number): void => {
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + times);
  };
  add(split(`${definition.container ?? ''} ${definition.name}`), NAME_COUNT);
  for (const line of definition.documentation) add(split(line), DOCUMENTATION_COUNT);
  for (const line of definition.body.slice(0, MAX_BODY_LINES)) add(split(line), BODY_COUNT);
  return counts;
}

/** Definitions of a file read for their words at most (the first, in file order). */
const MAX_FILE_DEFINITIONS = 2_000;

/**
 * The words of each of a file's definitions as the ranking reads a definition (its name and owner,
 * the documentation above it, its body or a container's head), for the commit's counts of them.
 */
export function wordsOfFile(text: string, definitions: readonly Definition[]): DefinitionWords[] {
  const lines = text.split('\n');
  const read = definitions.slice(0, MAX_FILE_DEFINITIONS);
  return read.flatMap((definition) => {
    if (definition.line > lines.length) return [];
    const start = Math.max(1, definition.line);
    const end = Math.min(lines.length, Math.max(start, headEnd(definition, read)));
    const docStart = documentationStart(lines, start);
    const counts = definitionWords(
      {
        name: definition.name,
        ...(definition.container !== undefined ? { container: definition.container } : {}),
        documentation: lines.slice(docStart - 1, start - 1),
        body: lines.slice(start - 1, end),
      },
      splitWords,
    );
    let length = 0;
    for (const count of counts.values()) length += count;
    return [{ words: counts.keys(), length }];
  });
}

/** How rare each word is across a repository's definitions: how many there are, their words in all, how many hold a word. */
export interface WordRarity {
  definitions: number;
  length: number;
  frequency(word: string): number;
}

/**
 * The definitions' BM25 scores for the description's words (stems; each counted once), indexed as
 * `definitions`; a word no definition holds weighs nothing, one most of them hold next to nothing.
 * Rarity is the repository's (`rarity`: every definition of the commit) when known, else that of
 * the definitions scored.
 */
export function describeScores(definitions: ReadonlyArray<ReadonlyMap<string, number>>, words: readonly string[], rarity?: WordRarity): number[] {
  const asked = [...new Set(words)];
  if (definitions.length === 0 || asked.length === 0) return definitions.map(() => 0);
  const lengths = definitions.map((counts) => [...counts.values()].reduce((sum, count) => sum + count, 0));
  const total = rarity && rarity.definitions > 0 ? rarity.definitions : definitions.length;
  const averageLength = (rarity && rarity.definitions > 0 ? rarity.length : lengths.reduce((sum, length) => sum + length, 0)) / total || 1;
  const idf = new Map<string, number>();
  for (const word of asked) {
    const held = definitions.filter((counts) => counts.has(word)).length;
    if (held === 0) continue;
    // A word of the definitions scored is in at least one of the repository's (a test's definition is in none of the table's).
    const containing = rarity && rarity.definitions > 0 ? Math.min(total, Math.max(1, rarity.frequency(word))) : held;
    idf.set(word, Math.log(1 + (total - containing + 0.5) / (containing + 0.5)));
  }
  return definitions.map((counts, index) => {
    const norm = 1 - B + (B * (lengths[index] ?? 0)) / averageLength;
    let score = 0;
    for (const [word, weight] of idf) {
      const frequency = counts.get(word) ?? 0;
      if (frequency > 0) score += (weight * frequency * (K1 + 1)) / (frequency + K1 * norm);
    }
    return score;
  });
}
