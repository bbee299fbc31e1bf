/**
 * Which definitions answer a question: every definition of the candidate files is scored by its name
 * (the question names it, or its words are the question's), by how many of the question's terms its
 * body holds (idf-weighted, a long body counting less: the smallest definition that holds them wins
 * over the class around it), by how close together they are, by its file's BM25 score, and by what
 * its file is (an implementation over a test that mentions every word). A file the parser cannot read
 * is scored by its best few lines instead. Pure but for the turns it gives the event loop.
 */
import { KIND_WEIGHT, type FileKind } from '../code/fileKinds';
import { nextTurn } from '../runtime/inTurns';
import type { Definition } from '../code/definitions';
import { COMMENT_LINE, CONTAINER_KINDS, documentationStart, headEnd } from './definitionExtent';
import { nameWords, squashName, type QuestionAnalysis } from './question';

/** A candidate file as the ranking sees it. */
export interface CandidateFile {
  path: string;
  kind: FileKind;
  lines: readonly string[];
  /** From the parser; undefined when its language has none. */
  definitions: readonly Definition[] | undefined;
  /** Its BM25 score for the question's terms. */
  fileScore: number;
}

/** A scored span of a file: a definition, or (in a file without one that fits) its best lines. */
export interface ScoredSpan<F extends CandidateFile = CandidateFile> {
  file: F;
  definition?: Definition;
  /** 1-based, inclusive. */
  start: number;
  end: number;
  /** Where its documentation starts (the comment just above it), when it has one: scored and quoted with it. */
  docStart?: number;
  /** The line holding the most of the question's terms (the first of equals). */
  bestLine: number;
  /** The best line of the rest of a long span, away from `bestLine` (a second place worth quoting). */
  nextLine?: number;
  score: number;
  /** The question's terms its lines hold. */
  termsHeld: string[];
  /** Whether the question names it (its name, or its owner and name). */
  named: boolean;
}

/** Term weights: a term's weight in the query times its inverse document frequency. */
export type TermWeights = ReadonlyMap<string, number>;

const NAME_EXACT = 12;
const MEMBER_OWNER = 4;
/** A member of a class the question names (`HTTPDigestAuth` → its `handle_401`). */
const NAMED_OWNER = 3;
const NAME_CONTAINS = 2;
const NAME_WORD = 3;
/** Lines past its first a body has to be more than a name's (a setter, a field). */
const SUBSTANTIAL_BODY = 5;
/** The share of the question's words a name holds to be its whole subject. */
const WHOLE_QUESTION = 0.75;
/** What a name's words count when the body holds nothing else of the question. */
const NAME_ONLY_SHARE = 0.5;
/** What a name word counts when the question has it only as a synonym (`store` for "keep"). */
const SYNONYM_SHARE = 0.5;
/** What a name word counts when the question only says it of when (`after network errors`). */
const CONDITION_SHARE = 0.5;
/** What each further question word a name holds adds to its words' score (a share). */
const MORE_WORDS = 0.5;
const BODY = 6;
const PROXIMITY = 3;
const FILE_PRIOR = 3;
/** A body up to this many lines holds its terms at full weight; longer ones count less. */
const COMPACT_LINES = 60;
/** What a term in the file's opening comment, and not in the definition, counts next to one in it. */
const HEADER_SHARE = 0.5;
/** Lines of a file's opening comment read at most. */
const MAX_HEADER_LINES = 40;
const PROXIMITY_WINDOW = 6;
/** Lines between a span's best line and its next (each is quoted with the lines around it). */
const KEY_LINES_APART = 20;
/** Lines outside definitions are a span of their own when they score at least this share of the file's best definition. */
const OUTSIDE_SHARE = 0.5;
/** A file without a fitting definition is scored by this many lines around its best line. */
const WINDOW_RADIUS = 8;

/** Definitions of one file scored at most. */
const MAX_SCORED = 2_000;

/** How much a definition of each kind answers "how" next to a function: a field names a thing, a function does it. */
const DEFINITION_WEIGHT: Readonly<Record<Definition['kind'], number>> = {
  function: 1,
  method: 1,
  class: 0.8,
  struct: 0.8,
  trait: 0.8,
  module: 0.8,
  enum: 0.8,
  interface: 0.8,
  type: 0.8,
  constant: 0.65,
  variable: 0.6,
  field: 0.55,
};
/** The same for "where" and "what" questions: a table or a type is as much an answer as a function. */
const WHERE_WEIGHT: Readonly<Record<Definition['kind'], number>> = {
  function: 0.95,
  method: 0.95,
  class: 1,
  struct: 1,
  trait: 1,
  module: 0.9,
  enum: 1,
  interface: 1,
  type: 1,
  constant: 1,
  variable: 0.85,
  field: 0.8,
};
/** Lines of the densest stretch of a definition that count as its body's best part. */
const DENSE_LINES = 25;
/** A body's densest stretch counts this share; the whole body (shorter counts more) the rest. */
const DENSE_SHARE = 0.6;
/** Tests written inside an implementation file (Rust's `mod tests`, a `test_…` function). */
const TEST_CONTAINER = /^tests?$/i;
const TEST_NAME = /^(test_|Test[A-Z_0-9]|test[A-Z])/;

/**
 * Every span of the candidates worth quoting, best first. A file at a time, the event loop served in
 * between (a search as the user types shares the engine's thread); at most `MAX_SCORED` definitions of
 * a file are scored (the first, in file order).
 */
export async function rankSpans<F extends CandidateFile>(files: readonly F[], question: QuestionAnalysis, weights: TermWeights): Promise<Array<ScoredSpan<F>>> {
  const maxFileScore = Math.max(1e-9, ...files.map((file) => file.fileScore));
  const totalWeight = [...weights.values()].reduce((sum, weight) => sum + weight, 0) || 1;
  const owned = ownedMembers(files, question);
  const spans: Array<ScoredSpan<F>> = [];
  for (const file of files) {
    await nextTurn();
    const termLines = termsPerLine(file.lines, weights);
    const prior = (FILE_PRIOR * file.fileScore) / maxFileScore;
    // What the file's opening comment says it is about counts for each of its definitions, at a share.
    const header = headerEnd(file.lines);
    const headerTerms = header > 0 ? spanTerms(termLines, 1, header, weights).held : [];
    const kindWeight = KIND_WEIGHT[file.kind];
    let fileBest: ScoredSpan<F> | undefined;
    const definitions = (file.definitions ?? []).slice(0, MAX_SCORED);
    for (const definition of definitions) {
      // A definition past the lines read (a file cut at its size limit) is not quoted.
      if (definition.line > file.lines.length) continue;
      const start = Math.max(1, definition.line);
      const end = Math.min(file.lines.length, Math.max(start, headEnd(definition, definitions)));
      const docStart = documentationStart(file.lines, start);
      const ownName = new Set(
        [...weights.keys()].filter((term) => squashName(`${definition.container ?? ''}${definition.name}`).includes(term.replaceAll('_', ''))),
      );
      const body = spanTerms(termLines, start, end, weights, definition.nameLine, ownName);
      // Its documentation says what it is for, at a share (as the file's opening comment does).
      const documented =
        docStart < start
          ? spanTerms(termLines, docStart, start - 1, weights, 0, ownName).held.filter((term) => !body.held.includes(term) && !ownName.has(term))
          : [];
      // A name over a body of a few lines that holds nothing else of the question is a setter or a field: only a name.
      const nameScore = scoreName(definition, question, weights, totalWeight, body.weight > 0 || end - start >= SUBSTANTIAL_BODY, owned);
      if (nameScore.score === 0 && body.held.length === 0) continue;
      const lengthFactor = 1 / (1 + Math.max(0, end - start + 1 - COMPACT_LINES) / (2 * COMPACT_LINES));
      const fromHeader =
        HEADER_SHARE *
          sumWeights(
            headerTerms.filter((term) => !body.held.includes(term) && !documented.includes(term)),
            weights,
          ) +
        DOC_SHARE * sumWeights(documented, weights);
      const bodyScore = DENSE_SHARE * body.dense + (1 - DENSE_SHARE) * body.weight * lengthFactor + fromHeader * lengthFactor;
      const isTest = (definition.container !== undefined && TEST_CONTAINER.test(definition.container)) || TEST_NAME.test(definition.name);
      const spanKindWeight = isTest ? Math.min(kindWeight, KIND_WEIGHT.test) : kindWeight;
      // A "how" question is answered by what does it; "where is X defined" as well by a constant or a type.
      const definitionWeight = (question.asksHow ? DEFINITION_WEIGHT : WHERE_WEIGHT)[definition.kind];
      const score =
        spanKindWeight * definitionWeight * (nameScore.score + (BODY * bodyScore) / totalWeight + (PROXIMITY * body.proximity) / totalWeight + prior);
      const span: ScoredSpan<F> = {
        file,
        definition,
        start,
        end,
        ...(docStart < start ? { docStart } : {}),
        bestLine: body.bestLine ?? definition.nameLine,
        ...(body.nextLine !== undefined ? { nextLine: body.nextLine } : {}),
        score,
        termsHeld: [...body.held, ...documented],
        named: nameScore.named,
      };
      spans.push(span);
      if (!fileBest || span.score > fileBest.score) fileBest = span;
    }
    // Lines outside every definition (top-level code, a call that registers a callback) have their best stretch too.
    // Only their code counts there: outside definitions, prose is mostly a file's or a module's documentation.
    const covered = coveredLines(file.lines.length, definitions);
    const outside =
      definitions.length === 0
        ? termLines
        : termLines
            .filter((hit) => covered[hit.line] === 0 && !IMPORT_LINE.test((file.lines[hit.line - 1] ?? '').slice(0, MAX_CODE_LINE)))
            .map((hit) => ({ ...hit, terms: [...hit.inCode.keys()] }))
            .filter((hit) => hit.terms.length > 0);
    {
      const window = bestWindow(outside, weights);
      if (!window) continue;
      const start = Math.max(1, window.line - WINDOW_RADIUS);
      const end = Math.min(file.lines.length, window.line + WINDOW_RADIUS);
      const body = spanTerms(outside, start, end, weights);
      const score = kindWeight * ((BODY * body.weight) / totalWeight + (PROXIMITY * body.proximity) / totalWeight + prior);
      if (!fileBest || score > fileBest.score * OUTSIDE_SHARE)
        spans.push({ file, start, end, bestLine: window.line, score, termsHeld: body.held, named: false });
    }
  }
  return spans.sort((a, b) => b.score - a.score || a.file.path.localeCompare(b.file.path) || a.start - b.start);
}

const DOCSTRING_START = /^\s*[rRuUbB]?("""|''')/;

/**
 * The last line of a file's opening comment (its documentation: a block comment, line comments, or
 * a module docstring), after blank lines and a `#!` line; 0 when it has none.
 */
function headerEnd(lines: readonly string[]): number {
  let index = 0;
  while (index < lines.length && (lines[index]?.trim() === '' || (index === 0 && lines[0]?.startsWith('#!') === true))) index++;
  const limit = Math.min(lines.length, index + MAX_HEADER_LINES);
  const first = lines[index] ?? '';
  const quote = DOCSTRING_START.exec(first)?.[1];
  if (quote) {
    if (first.slice(first.indexOf(quote) + 3).includes(quote)) return index + 1;
    for (let line = index + 1; line < limit; line++) if (lines[line]?.includes(quote)) return line + 1;
    return limit;
  }
  let end = 0;
  let inBlock = false;
  for (let line = index; line < limit; line++) {
    const text = lines[line] ?? '';
    if (!inBlock && !COMMENT_LINE.test(text)) break;
    end = line + 1;
    if (inBlock) inBlock = !text.includes('*/');
    else inBlock = /^\s*\/\*/.test(text) && !text.includes('*/');
  }
  return end;
}

/** Which lines (1-based) some definition other than a module covers: 1. */
function coveredLines(lineCount: number, definitions: readonly Definition[]): Uint8Array {
  // Opened and closed counts, summed along the lines: linear however the definitions nest.
  const depth = new Int32Array(lineCount + 2);
  for (const definition of definitions) {
    if (definition.kind === 'module' || definition.line > lineCount) continue;
    const opens = Math.max(1, definition.line);
    const closes = Math.min(lineCount, definition.endLine) + 1;
    depth[opens] = (depth[opens] ?? 0) + 1;
    depth[closes] = (depth[closes] ?? 0) - 1;
  }
  const covered = new Uint8Array(lineCount + 2);
  let open = 0;
  for (let line = 1; line <= lineCount; line++) {
    open += depth[line] ?? 0;
    if (open > 0) covered[line] = 1;
  }
  return covered;
}

/** What a term of a definition's documentation (and not of its body) counts next to one of its body. */
const DOC_SHARE = 0.5;
/** Whether a definition's owner is the owner of a member form (`res` of `res.render`; `Session` for `session.request`). */
function ownerMatches(container: string, owner: string): boolean {
  const ownerName = squashName(owner);
  return container === ownerName || container.endsWith(ownerName) || ownerName.endsWith(container);
}

/** The members of the question's member forms (squashed) that some candidate defines under the owner asked about. */
function ownedMembers(files: readonly CandidateFile[], question: QuestionAnalysis): Set<string> {
  const owned = new Set<string>();
  if (question.members.length === 0) return owned;
  for (const file of files) {
    for (const definition of file.definitions ?? []) {
      if (definition.container === undefined) continue;
      const name = squashName(definition.name);
      const container = squashName(definition.container);
      if (question.members.some(({ owner, member }) => squashName(member) === name && ownerMatches(container, owner))) owned.add(name);
    }
  }
  return owned;
}

/**
 * How much a definition's name says it is what the question asks about. `owned`: the members the
 * question's member forms name that a candidate defines under the owner asked about (then a
 * same-named member of another owner is a namesake, not what is asked).
 */
export function scoreName(
  definition: Definition,
  question: QuestionAnalysis,
  weights: TermWeights,
  totalWeight: number,
  bodySupports: boolean,
  owned: ReadonlySet<string> = new Set(),
): { score: number; named: boolean } {
  const squashed = squashName(definition.name);
  const container = definition.container ? squashName(definition.container) : undefined;
  // One of several names asked about is less the answer than the only one.
  const full = NAME_EXACT / Math.sqrt(Math.max(1, question.names.length));
  const namesake =
    owned.has(squashed) &&
    container !== undefined &&
    question.members.some(({ member }) => squashName(member) === squashed) &&
    !question.members.some(({ owner, member }) => squashName(member) === squashed && ownerMatches(container, owner));
  // A namesake (`app.render`, `View.prototype.render` for `res.render`, which a candidate defines) is not what is named: its name counts nothing.
  const exact = namesake ? 0 : full;
  let score = 0;
  let isNamed = false;
  for (const name of question.names) {
    const asked = squashName(name);
    if (asked === squashed) {
      // A class the question names is answered by what it does: its methods weigh in below.
      score += CONTAINER_KINDS.has(definition.kind) ? exact / 2 : exact;
      isNamed = !namesake;
    } else if (asked.length >= 4 && squashed.includes(asked)) {
      score += NAME_CONTAINS;
    }
    if (container !== undefined && asked === container) score += NAMED_OWNER;
  }
  for (const { owner, member } of question.members) {
    if (squashName(member) !== squashed || container === undefined) continue;
    if (ownerMatches(container, owner)) score += MEMBER_OWNER;
  }
  const words = nameWords(definition.name);
  const ownerWords = definition.container ? nameWords(definition.container) : [];
  const share = Math.max(1, totalWeight / Math.max(1, question.stems.length));
  let wordScore = 0;
  let wordsMatched = 0;
  const synonyms = question.synonyms.map((synonym) => synonym.text);
  for (const stemmed of [...question.stems, ...synonyms]) {
    // A rare word in the name says more than a common one: `suggest` more than `get`; a word the question only implies (a synonym) less.
    const synonymShare = question.stems.includes(stemmed) ? 1 : SYNONYM_SHARE;
    const weight = (Math.max(0.25, weights.get(stemmed) ?? 0) / share) * (question.conditions.has(stemmed) ? CONDITION_SHARE : 1) * synonymShare;
    const matches = (word: string): boolean => word.startsWith(stemmed) || (ABBREVIATIONS.get(word)?.startsWith(stemmed) ?? false);
    // A name that is the word itself (`match`) says it more than one that holds it (`matchLayer`).
    if (words.length === 1 && words[0] !== undefined && matches(words[0]) && words[0].length <= stemmed.length + 3) wordScore += NAME_WORD * 1.5 * weight;
    else if (words.some(matches)) wordScore += NAME_WORD * weight;
    else if (ownerWords.some(matches)) wordScore += (NAME_WORD / 2) * weight;
    else continue;
    if (synonymShare === 1) wordsMatched++;
  }
  // A name made of the question's words (`TOOL_SERVER_ENDPOINTS` for "tool server endpoints") is its subject.
  const coverage = Math.min(1, wordsMatched / Math.max(1, question.stems.length));
  // A name of the question's words over a body that holds none of its other words (a setter, a field) is only a name.
  // (A name that is the whole question needs no more.)
  score += wordScore * (1 + Math.max(0, wordsMatched - 1) * MORE_WORDS * coverage) * (bodySupports || coverage >= WHOLE_QUESTION ? 1 : NAME_ONLY_SHARE);
  return { score, named: isNamed };
}

/** Short forms names use for the words questions write (`InitDefaultHelpCmd`: a help command). */
const ABBREVIATIONS: ReadonlyMap<string, string> = new Map([
  ['cmd', 'command'],
  ['cmds', 'commands'],
  ['cfg', 'config'],
  ['conf', 'config'],
  ['conn', 'connection'],
  ['conns', 'connections'],
  ['req', 'request'],
  ['resp', 'response'],
  ['msg', 'message'],
  ['err', 'error'],
  ['errs', 'errors'],
  ['arg', 'argument'],
  ['args', 'arguments'],
  ['param', 'parameter'],
  ['params', 'parameters'],
  ['dir', 'directory'],
  ['auth', 'authentication'],
  ['init', 'initialize'],
  ['ctx', 'context'],
  ['env', 'environment'],
  ['str', 'string'],
  ['num', 'number'],
  ['len', 'length'],
  ['buf', 'buffer'],
  ['addr', 'address'],
  ['prev', 'previous'],
  ['max', 'maximum'],
  ['min', 'minimum'],
  ['idx', 'index'],
  ['attr', 'attribute'],
  ['attrs', 'attributes'],
  ['val', 'value'],
  ['vals', 'values'],
  ['sep', 'separator'],
  ['tmp', 'temporary'],
  ['src', 'source'],
  ['dst', 'destination'],
  ['dest', 'destination'],
  ['pkg', 'package'],
  ['repo', 'repository'],
  ['doc', 'document'],
  ['db', 'database'],
  ['fn', 'function'],
  ['func', 'function'],
  ['impl', 'implementation'],
  ['spec', 'specification'],
]);

interface Hit {
  line: number;
  terms: string[];
  /**
   * How well each term is found outside string literals and comments (the line does it, not only
   * says it): 1 as a word of its own (`sign(`), 0.8 starting a word (`signed`), 0.5 inside one.
   */
  inCode: Map<string, number>;
}

/** What a line found only in a message or a comment counts, next to one found in its code. */
const PROSE_SHARE = 0.35;
/** A string runs to its closing quote or the line's end; no alternative can backtrack into another. */
const STRING_OR_COMMENT = /'(?:[^'\\]|\\.)*(?:'|\\?$)|"(?:[^"\\]|\\.)*(?:"|\\?$)|`(?:[^`\\]|\\.)*(?:`|\\?$)|(?:\/\/|#).*$|\/\*.*?(?:\*\/|$)/g;
const STRING = /'(?:[^'\\]|\\.)*(?:'|\\?$)|"(?:[^"\\]|\\.)*(?:"|\\?$)|`(?:[^`\\]|\\.)*(?:`|\\?$)/g;
/** Characters of a line read for its code (the rest of a longer line counts as prose). */
const MAX_CODE_LINE = 4096;

/** A line without its string literals and comments (roughly: quotes and `//`, `#`, `/*` on the line). */
export function codeOf(line: string): string {
  return line.slice(0, MAX_CODE_LINE).replace(STRING_OR_COMMENT, ' ');
}

/** The lines holding some of the terms, in order, each with the distinct terms it holds. */
function termsPerLine(lines: readonly string[], weights: TermWeights): Hit[] {
  const hits: Hit[] = [];
  const terms = [...weights.keys()];
  const prose = proseLines(lines);
  // Bounded by the file read (1 MiB at most).
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const lower = line.toLowerCase();
    let held = terms.filter((term) => lower.includes(term));
    if (held.length === 0) continue;
    // A short term inside a longer word is another word (`man` in `command`): it must be a word, or a part of a name.
    if (held.some((term) => term.length <= SHORT_TERM)) {
      const parts = identifierParts(line);
      held = held.filter((term) => term.length > SHORT_TERM || parts.some((part) => part.startsWith(term) && part.length <= term.length + SHORT_TERM_SUFFIX));
      if (held.length === 0) continue;
    }
    const code = prose[index] ? '' : codeOf(lower);
    const inCode = new Map<string, number>();
    for (const term of held) {
      const at = code.indexOf(term);
      if (at >= 0) inCode.set(term, wordMatch(code, term, at));
    }
    hits.push({ line: index + 1, terms: held, inCode });
  }
  return hits;
}

/**
 * Which lines are inside a block comment (`/* … *\/`) or a docstring (`""" … """`) as a whole: the
 * code of a line ends its comment; a line that opens one is code up to it (codeOf drops the rest).
 */
function proseLines(lines: readonly string[]): boolean[] {
  const prose: boolean[] = [];
  let closing: string | undefined;
  for (const line of lines) {
    if (closing !== undefined) {
      prose.push(true);
      const at = line.indexOf(closing);
      if (at >= 0) closing = undefined;
      continue;
    }
    prose.push(false);
    // A `/*` inside a string (`glob("*/x/*")`) opens no comment.
    const code = line.slice(0, MAX_CODE_LINE).replace(STRING, ' ');
    const block = code.lastIndexOf('/*');
    if (block >= 0 && code.indexOf('*/', block + 2) < 0) closing = '*/';
    const docstring = DOCSTRING_START.exec(line)?.[1];
    if (docstring && line.indexOf(docstring, line.indexOf(docstring) + 3) < 0) closing = docstring;
  }
  return prose;
}

/** Terms this short are matched as words or parts of names only. */
export const SHORT_TERM = 3;
/** Letters a word may have after a short term (its stem: `pol` of `poller`). */
const SHORT_TERM_SUFFIX = 4;
/** Lines that bring names in rather than use them. */
export const IMPORT_LINE = /^\s*(import|from|export\s+\*|export\s+\{[^}]*\}\s+from|package|use|using|require|#\s*include|extern\s+crate)\b|=\s*require\(/;

/** The lower-case parts of a line's words and names: `GenManTree(man_page)` → gen, man, tree, man, page. */
function identifierParts(line: string): string[] {
  return (line.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? []).map((part) => part.toLowerCase());
}

const WORD_CHAR = /[a-z0-9_$]/;

/** How `term` (found at `at`) stands in `text`: the best of its occurrences, as a word, a word's start, or inside one. */
function wordMatch(text: string, term: string, at: number): number {
  let best = 0;
  for (let index = at; index >= 0 && best < 1; index = text.indexOf(term, index + 1)) {
    const startsWord = index === 0 || !WORD_CHAR.test(text[index - 1] ?? '');
    const endsWord = !WORD_CHAR.test(text[index + term.length] ?? '');
    best = Math.max(best, startsWord ? (endsWord ? 1 : 0.8) : 0.5);
  }
  return best;
}

/** The index of the first hit on or after `line`. */
function firstHitFrom(hits: readonly Hit[], line: number): number {
  let low = 0;
  let high = hits.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((hits[middle]?.line ?? 0) < line) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The terms a span holds, their weight, its best line and the weight of its densest few lines. */
function spanTerms(
  hits: readonly Hit[],
  start: number,
  end: number,
  weights: TermWeights,
  signatureEnd = 0,
  ownName: ReadonlySet<string> = new Set(),
): { held: string[]; weight: number; bestLine?: number; nextLine?: number; proximity: number; dense: number } {
  const held = new Set<string>();
  const keyLines: Array<{ line: number; weight: number }> = [];
  const from = firstHitFrom(hits, start);
  let to = from;
  for (; to < hits.length && (hits[to]?.line ?? 0) <= end; to++) {
    const hit = hits[to];
    if (!hit) break;
    let lineWeight = 0;
    for (const term of hit.terms) {
      held.add(term);
      // What the definition does is in the other words: its own name is on many of its lines.
      if (!ownName.has(term)) lineWeight += (weights.get(term) ?? 0) * (hit.inCode.get(term) ?? PROSE_SHARE);
    }
    // The key line is in the body: the signature holds the name's words by being the name.
    if (lineWeight > 0 && hit.line > signatureEnd) keyLines.push({ line: hit.line, weight: lineWeight });
  }
  keyLines.sort((a, b) => b.weight - a.weight || a.line - b.line);
  const bestLine = keyLines[0]?.line;
  const nextLine = bestLine === undefined ? undefined : keyLines.find(({ line }) => Math.abs(line - bestLine) > KEY_LINES_APART)?.line;
  // Its own name (and its owner's) is scored as a name, not again as words of its body.
  const scored = ownName.size === 0 ? weights : new Map([...weights].filter(([term]) => !ownName.has(term)));
  const proximity = densest(hits, from, to, PROXIMITY_WINDOW, scored);
  const dense = densest(hits, from, to, DENSE_LINES, scored);
  return {
    held: [...held],
    weight: sumWeights(held, scored),
    proximity,
    dense,
    ...(bestLine !== undefined ? { bestLine } : {}),
    ...(nextLine !== undefined ? { nextLine } : {}),
  };
}

/** The most weight of distinct terms any `size` consecutive lines of the hits `from`…`to` hold. */
function densest(hits: readonly Hit[], from: number, to: number, size: number, weights: TermWeights): number {
  let best = 0;
  for (let first = from; first < to; first++) {
    const window = new Set<string>();
    const limit = (hits[first]?.line ?? 0) + size;
    for (let next = first; next < to && (hits[next]?.line ?? 0) < limit; next++) for (const term of hits[next]?.terms ?? []) window.add(term);
    best = Math.max(best, sumWeights(window, weights));
  }
  return best;
}

/** The weight of distinct terms, a term inside a longer one held too counted once (`consta` in `constant`). */
function sumWeights(terms: Iterable<string>, weights: TermWeights): number {
  const all = [...terms];
  let sum = 0;
  for (const term of all) if (!all.some((other) => other !== term && other.length > term.length && other.startsWith(term))) sum += weights.get(term) ?? 0;
  return sum;
}

/** The line whose few neighbours hold the most weight of distinct terms (the first of equals). */
function bestWindow(hits: readonly Hit[], weights: TermWeights): { line: number } | undefined {
  let best: { line: number; weight: number } | undefined;
  for (const hit of hits) {
    const { weight } = spanTerms(hits, hit.line - 2, hit.line + 2, weights);
    if (!best || weight > best.weight) best = { line: hit.line, weight };
  }
  return best && { line: best.line };
}
