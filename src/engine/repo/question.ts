/**
 * What a question asks about, as the answerer searches for it: the terms natural-language search
 * takes (stems and whole identifiers), the names it mentions (`parseConfig`, `raise_for_status`),
 * its member forms (`res.cookie`, `Axios.request`: a name and its owner), and its plain words'
 * stems, which a definition's name may hold (`suggest` in `SuggestionsFor`). Pure functions.
 */
import { queryTerms, stem, type SearchTermSpec } from '../search/ranking';
import { extractSearchTerms, isStopword, splitIdentifier } from '../search/searchTerms';
import { wordsOf } from './definitionText';
import { readQuestion, requestWords, type QuestionKind } from './questionKind';

export interface MemberForm {
  /** `res` of `res.cookie`; `Axios` of `Axios.prototype.request`. */
  owner: string;
  /** `cookie`. */
  member: string;
}

export interface QuestionAnalysis {
  /** Searched with BM25, as natural-language search takes a query. */
  terms: SearchTermSpec[];
  /**
   * Other words code uses for the question's words (`keep` → `store`, `save`), not searched for
   * (they would bring in files that hold only them) but counted, at a lower weight, in the files read.
   */
  synonyms: SearchTermSpec[];
  /** The names the question writes as code (whole), members of member forms included. */
  names: string[];
  members: MemberForm[];
  /** Stems of its plain words (not names), lower case: `suggest`, `mistyp`, `cookie`. */
  stems: string[];
  /**
   * Stems that only say when (`network errors` in "How are requests retried after network errors?"):
   * a definition named for them is less the answer than one named for what is done.
   */
  conditions: Set<string>;
  /** The question's words as the turns and the answer name them. */
  shown: string[];
  /** Whether it asks how or why something happens (behaviour: functions), rather than where or what a thing is. */
  asksHow: boolean;
  /** The question's word each term comes from (`valu` → `value`), to speak the question's words. */
  labels: Map<string, string>;
  /** A question, or a description of the code (a paragraph: matched against what each definition is). */
  kind: QuestionKind;
  /** The stems of every word that can say what the code is (its frame left out), each once: what a description is matched by. */
  described: string[];
  /**
   * The words of its requests ("I want the code that", "Find the place where"), left out of all of the
   * above: they ask, they do not say what the code does. One that names definitions of the
   * repository ("I need the lookup that") is a name after all (retrieval adds it back).
   */
  framing: string[];
}

const MAX_NAMES = 8;
const MAX_STEMS = 16;
/** Stems of a description kept for its names' words, and terms it is searched by (a paragraph says more than a question). */
const MAX_DESCRIPTION_STEMS = 40;
const MAX_DESCRIPTION_TERMS = 32;
const MAX_DESCRIBED = 120;
const MAX_NUMBERS = 4;
/**
 * Words code uses for what questions say in other words: a question asks where a token is "kept",
 * code "stores" it. Each group's words stand for one another, searched at a lower weight.
 */
const SYNONYMS: ReadonlyArray<readonly string[]> = [
  ['keep', 'store', 'save', 'persist', 'cache'],
  ['retry', 'attempt', 'backoff'],
  ['find', 'search', 'lookup', 'locate'],
  ['delete', 'remove', 'unlink'],
  ['start', 'launch', 'spawn'],
  ['stop', 'terminate', 'shutdown', 'kill'],
  ['check', 'validate', 'verify'],
  ['config', 'setting', 'option'],
  ['credential', 'secret', 'token'],
  ['mistype', 'typo', 'misspell', 'suggest'],
  ['limit', 'maximum', 'bound'],
  ['timeout', 'deadline'],
  ['encode', 'decode', 'escape', 'unescape'],
];
const SYNONYM_WEIGHT = 0.4;
const MAX_SYNONYMS = 6;
const MAX_MEMBERS = 4;
/** A member form: `a.b`, `a.b.c` or `A::b`, the last part being the member. */
const MEMBER_FORM = /\b([A-Za-z_$][\w$]*)(?:\.prototype)?(?:\.|::|#)([A-Za-z_$][\w$]*)(?=[\s(`'",;:?!)]|\.(?:\s|$)|$)/g;
const FILE_EXTENSION = /^(js|ts|tsx|jsx|mjs|cjs|py|go|rs|rb|php|java|cs|c|h|cc|cpp|hpp|md|json|ya?ml|toml|txt|html|css)$/i;
/** Words of a question that name nothing in code. */
const SKIPPED = new Set(['does', 'do', 'how', 'what', 'where', 'which', 'when', 'why', 'who']);

export function analyseQuestion(question: string): QuestionAnalysis {
  // A frame ("Which function matches the following description?") says how to read the rest, nothing of the code.
  const bounded = readQuestion(question.slice(0, 8_000), false).text;
  const members: MemberForm[] = [];
  for (const match of bounded.matchAll(MEMBER_FORM)) {
    const owner = match[1] ?? '';
    const member = match[2] ?? '';
    // `lib/response.js` and `e.g.` are no member forms.
    if (FILE_EXTENSION.test(member) || owner.length < 2 || member.length < 2) continue;
    if (!members.some((known) => known.owner === owner && known.member === member)) members.push({ owner, member });
    if (members.length === MAX_MEMBERS) break;
  }
  const extracted = extractSearchTerms(bounded);
  const codeShaped = new Set(extracted.filter((term) => splitIdentifier(term).length > 0 || /[`]/.test(term)));
  const inCode = new Set<string>();
  for (const span of bounded.matchAll(/`([^`\n]{1,200})`/g)) for (const token of span[1]?.match(/[A-Za-z_$][\w$]*/g) ?? []) inCode.add(token);
  const names: string[] = [];
  const addName = (name: string): void => {
    if (name.length >= 2 && !names.includes(name) && names.length < MAX_NAMES) names.push(name);
  };
  for (const { member } of members) addName(member);
  // A word written as a call (`call()`, `next(err)`) is a name too.
  for (const call of bounded.matchAll(/\b([A-Za-z_$][\w$]{2,})\((?:[\w$, ]{0,40})\)/g)) if (call[1]) addName(call[1]);
  for (const term of extracted) if (codeShaped.has(term) || inCode.has(term)) addName(term);
  const kind = readQuestion(bounded, names.length > 0).kind;
  const describing = kind === 'description';
  const framing = framingOf(bounded, names);
  const plain = (word: string): string => word.replace(/[^A-Za-z]/g, '').toLowerCase();
  const stems: string[] = [];
  // A description's every plain word may be a name's (a question's first few say what it asks).
  const plainWords = (describing ? (bounded.match(/[A-Za-z_$][\w$]*/g) ?? []).filter((word) => word.length >= 3 && !isStopword(word)) : extracted).filter(
    (word) => !framing.has(plain(word)),
  );
  for (const word of plainWords) {
    if (names.includes(word) || SKIPPED.has(word.toLowerCase())) continue;
    const stemmed = stem(word);
    if (stemmed.length >= 3 && !stems.includes(stemmed)) stems.push(stemmed);
  }
  // Status codes and other numbers name things too (`handle_401`): a few (a pasted log has hundreds).
  for (const number of (bounded.match(/\b\d{3,}\b/g) ?? []).slice(0, MAX_NUMBERS)) if (!stems.includes(number)) stems.push(number);
  stems.splice(describing ? MAX_DESCRIPTION_STEMS : MAX_STEMS);
  const conditions = conditionStems(bounded, stems);
  // Members and owners are searched too: `res.cookie` holds the words `res` and `cookie`; a phrasal verb as code writes it (`back off` → `backoff`).
  const searched = [
    ...bounded.split(/\s+/).filter((token) => token !== '' && !framing.has(plain(token))),
    ...members.flatMap(({ owner, member }) => [owner, member]),
    ...phrasalVerbs(bounded),
  ];
  const terms = queryTerms(searched, describing ? MAX_DESCRIPTION_TERMS : undefined);
  const synonyms = synonymsOf(terms);
  const shown = [
    ...members.map(({ owner, member }) => `${owner}.${member}`),
    ...extracted.filter((term) => !members.some(({ member, owner }) => term === member || term === owner)),
  ].slice(0, MAX_NAMES);
  const tokens = bounded.match(/[A-Za-z_$][\w$]*/g) ?? [];
  const labels = new Map<string, string>();
  for (const term of terms) {
    const word =
      tokens.find((token) => token.toLowerCase() === term.text) ??
      tokens.find((token) => squashName(token) === squashName(term.text)) ??
      tokens.find((token) => token.toLowerCase().startsWith(term.text));
    if (word) labels.set(term.text, word);
  }
  for (const synonym of synonyms) {
    const word = SYNONYMS.flat().find((candidate) => stem(candidate) === synonym.text);
    if (word) labels.set(synonym.text, word);
  }
  const asksHow = describing || /^\s*(how|why|in what order|what happens|when does|when do|when is|when are)\b/i.test(bounded);
  const described = [
    ...new Set(
      (bounded.match(/[A-Za-z_$][\w$]*/g) ?? [])
        .filter((word) => !isStopword(word) && !SKIPPED.has(word.toLowerCase()) && !framing.has(plain(word)))
        .flatMap((word) => wordsOf(word)),
    ),
  ].slice(0, MAX_DESCRIBED);
  return { terms, synonyms, names, members, stems, conditions, shown, labels, asksHow, kind, described, framing: [...framing] };
}

/** The words said only in the text's requests (not again where it says what the code does), stop words and names aside. */
function framingOf(text: string, names: readonly string[]): Set<string> {
  const requested = requestWords(text).filter((word) => !isStopword(word) && !SKIPPED.has(word) && !names.includes(word));
  if (requested.length === 0) return new Set();
  const said = new Map<string, number>();
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) said.set(word, (said.get(word) ?? 0) + 1);
  const asked = new Map<string, number>();
  for (const word of requested) asked.set(word, (asked.get(word) ?? 0) + 1);
  return new Set([...asked].filter(([word, count]) => (said.get(word) ?? 0) <= count).map(([word]) => word));
}

/** The analysis with the request words that name definitions (`lookup` of "I need the lookup that") back among its stems and words. */
export function withFramingNames(question: QuestionAnalysis, namesDefinitions: (word: string) => boolean): QuestionAnalysis {
  const names = question.framing.filter(namesDefinitions);
  if (names.length === 0) return question;
  return {
    ...question,
    stems: [...new Set([...question.stems, ...names.map((word) => stem(word))])],
    described: [...new Set([...question.described, ...names.flatMap((word) => wordsOf(word))])],
  };
}

const PARTICLES = new Set(['off', 'up', 'out', 'in', 'down', 'back', 'over', 'on']);

/** `back off`, `set up`, `time out`, `log in`, `shut down` as one word each, as names write them. */
function phrasalVerbs(question: string): string[] {
  const words = question.toLowerCase().match(/[a-z]+/g) ?? [];
  const joined: string[] = [];
  for (let at = 1; at < words.length; at++) {
    const [verb, particle] = [words[at - 1] ?? '', words[at] ?? ''];
    if (PARTICLES.has(particle) && verb.length >= 3 && !SKIPPED.has(verb)) joined.push(`${verb}${particle}`);
  }
  return joined;
}

/** Words that open a clause saying when, after the question has said what (not as its first words). */
const CONDITION = /\b(after|before|when|whenever|if|unless|once|while|until)\b/i;
const WORDS_BEFORE_CONDITION = 3;

/** The stems of the words after a late "after", "when", "if"… */
function conditionStems(question: string, stems: readonly string[]): Set<string> {
  const match = CONDITION.exec(question);
  if (!match) return new Set();
  const before = question.slice(0, match.index).match(/[A-Za-z0-9_$]+/g)?.length ?? 0;
  if (before < WORDS_BEFORE_CONDITION) return new Set();
  const after = (question.slice(match.index + match[0].length).match(/[A-Za-z0-9_$]+/g) ?? []).map((word) => stem(word));
  return new Set(stems.filter((stemmed) => after.includes(stemmed)));
}

/** The stems of other words for what the terms say, each weighted as a share of the term it stands for. */
function synonymsOf(terms: readonly SearchTermSpec[]): SearchTermSpec[] {
  const known = new Set(terms.map((term) => term.text));
  const added: SearchTermSpec[] = [];
  for (const term of terms) {
    const group = SYNONYMS.find((words) => words.some((word) => stem(word) === term.text));
    for (const word of group ?? []) {
      const text = stem(word);
      if (known.has(text) || added.length === MAX_SYNONYMS) continue;
      known.add(text);
      added.push({ text, weight: SYNONYM_WEIGHT * term.weight });
    }
  }
  return added;
}

/** Lower case without underscores: `parse_config` and `parseConfig` are one name. */
export function squashName(name: string): string {
  return name.toLowerCase().replaceAll('_', '');
}

/** A name's words, lower case: `SuggestionsFor` → `suggestions`, `for`; `cookie` → `cookie`. */
export function nameWords(name: string): string[] {
  const parts = splitIdentifier(name);
  return (parts.length > 0 ? parts : [name]).map((part) => part.toLowerCase());
}
