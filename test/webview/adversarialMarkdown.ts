/**
 * Answers built to make Markdown rendering slow, about 250 KB each (the size case: just past the
 * panel's limit): every class of input known to cost marked, the browser's HTML parser, DOMPurify
 * or layout far more than its size suggests, each as far as it goes and also just inside the
 * panel's limits (`src/webview/markdownBudget.ts`), where it still renders as Markdown and costs
 * the most. Shared by the webview tests (what the panel shows for each) and the rendering
 * benchmark (the worst main-thread time over the set).
 */
import { markdownVerdict, type PlainTextReason } from '../../src/webview/markdownBudget';

export type AdversarialGroup = 'emphasis' | 'links' | 'nesting' | 'blocks' | 'html' | 'other';

export interface AdversarialInput {
  /** The class of input, as the sections below group them. */
  group: AdversarialGroup;
  name: string;
  markdown: string;
  /** How the panel shows it: as plain text with a note saying why, or as Markdown. */
  shown: { as: 'plain'; reason: PlainTextReason } | { as: 'markdown' };
}

/** About this many characters each. */
const TARGET = 250_000;

/** `unit` repeated to about `TARGET` characters (`reserve` of them left for the rest). */
function fill(unit: string, reserve = 0): string {
  return unit.repeat(Math.max(1, Math.floor((TARGET - reserve) / unit.length)));
}

/** `make(index)` for index 0, 1, … joined until about `TARGET` characters. */
function series(make: (index: number) => string, separator = ''): string {
  const parts: string[] = [];
  let size = 0;
  for (let index = 0; size < TARGET; index++) {
    const part = make(index);
    parts.push(part);
    size += part.length + separator.length;
  }
  return parts.join(separator);
}

/** `unit` repeated as often as `half` of the target allows. */
function half(unit: string): string {
  return unit.repeat(Math.floor(TARGET / 2 / unit.length));
}

/** Prose of few markup items: paragraphs of one long line each. */
function prose(chars: number): string {
  const paragraph = `${'Plain words of a long paragraph, '.repeat(60)}end.\n\n`;
  return paragraph.repeat(Math.max(0, Math.floor(chars / paragraph.length)));
}

/**
 * As many `unit`s as still render as Markdown (found by bisection against the panel's own
 * verdict), after prose that makes the whole about `TARGET` characters: the costliest answer of
 * its kind the panel renders.
 */
function justInside(unit: (count: number) => string): string {
  const withProse = (count: number) => {
    const units = unit(count);
    return `${prose(TARGET - units.length)}${units}`;
  };
  let low = 1;
  let high = 2;
  while (markdownVerdict(withProse(high)).render) high *= 2;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (markdownVerdict(withProse(middle)).render) low = middle;
    else high = middle;
  }
  return withProse(low);
}

const markdown = { as: 'markdown' } as const;
const plain = (reason: PlainTextReason) => ({ as: 'plain', reason }) as const;

/** The inputs of one class. */
function group(name: AdversarialGroup, inputs: Omit<AdversarialInput, 'group'>[]): AdversarialInput[] {
  return inputs.map((input) => ({ group: name, ...input }));
}

export const ADVERSARIAL_INPUTS: readonly AdversarialInput[] = [
  // Emphasis: marked pairs delimiters by scanning ahead from each unpaired one.
  ...group('emphasis', [
    { name: 'emphasis `_a_a…`', markdown: fill('_a'), shown: plain('emphasis') },
    { name: 'emphasis `*a **b`', markdown: fill('*a **b '), shown: plain('emphasis') },
    { name: 'emphasis `_a_a _a_a` (openers waiting)', markdown: fill('_a_a '), shown: plain('emphasis') },
    { name: 'emphasis `*_a *_a`', markdown: fill('*_a '), shown: plain('emphasis') },
    { name: 'emphasis `a__a__`', markdown: fill('a__'), shown: plain('emphasis') },
    { name: 'emphasis, one paragraph per line', markdown: fill('*a _b ~c\n'), shown: plain('emphasis') },
    { name: 'emphasis, paragraphs of 2,900 `_a`', markdown: fill(`${'_a'.repeat(2900)}\n\n`), shown: plain('emphasis') },
    { name: 'long delimiter runs `***…a***…`', markdown: `${half('*')}a${half('*')}`, shown: plain('emphasis') },
    // After what looks like a code fence but is not one for marked (the code it seems to start is not skipped).
    { name: 'emphasis after a fence in a quote', markdown: `> \`\`\`\n${fill('_a_a ', 10)}`, shown: plain('emphasis') },
    { name: 'emphasis after an indented fence', markdown: `    \`\`\`\n${fill('_a_a ', 10)}`, shown: plain('emphasis') },
    { name: 'emphasis after a fence with a backtick in its info', markdown: `\`\`\`a\`\n${fill('_a_a ', 10)}`, shown: plain('emphasis') },
    { name: 'emphasis just inside the limits', markdown: justInside((count) => `${'_a'.repeat(2900)}\n\n`.repeat(count)), shown: markdown },
    {
      name: 'waiting openers just inside the limits',
      markdown: justInside((count) => `${'_a_a '.repeat(count)}\n\n`),
      shown: markdown,
    },
  ]),
  // Brackets: links in links, unclosed links, references by the thousand.
  ...group('links', [
    { name: 'nested links `[[[…a](x)…`', markdown: `${'['.repeat(TARGET / 12)}a${'](/x)'.repeat(TARGET / 12)}`, shown: plain('markup') },
    { name: 'open brackets `[[[…`', markdown: fill('['), shown: plain('markup') },
    { name: 'unclosed link destinations `[a](`', markdown: fill('[a]('), shown: plain('markup') },
    { name: 'images in brackets `![[`', markdown: fill('![['), shown: plain('markup') },
    { name: 'reference storm `[a][b] [c]`', markdown: `${fill('[a][b] [c] ', 40)}\n\n[b]: /x\n[c]: /y`, shown: plain('markup') },
    { name: 'reference definitions', markdown: series((index) => `[r${index}]: /path/${index} "t"\n[r${index}] `, '\n'), shown: plain('markup') },
    { name: 'links', markdown: fill('[a](/b) '), shown: plain('markup') },
    { name: 'links just inside the limits', markdown: justInside((count) => '[a](/b) '.repeat(count)), shown: markdown },
    { name: 'autolinks', markdown: fill('www.a.io https://b.io/c a@b.io '), shown: plain('markup') },
  ]),
  // Nesting of quotes and lists, by indentation or by markers on one line.
  ...group('nesting', [
    { name: 'nested quotes `>>>…`', markdown: `${fill('>', 2)}a`, shown: plain('nesting') },
    { name: 'nested quotes `> > >…`', markdown: `${fill('> ', 2)}a`, shown: plain('nesting') },
    { name: 'nested lists by indentation', markdown: series((index) => `${'  '.repeat(Math.min(index, 400))}- item ${index}`, '\n'), shown: plain('nesting') },
    { name: 'nested lists `- - - …` on one line', markdown: `${fill('- ', 2)}a`, shown: plain('nesting') },
    { name: 'nested ordered lists `1. 1. …`', markdown: `${fill('1. ', 2)}a`, shown: plain('nesting') },
    { name: 'quotes and lists `> - > - …`', markdown: `${fill('> - ', 2)}a`, shown: plain('nesting') },
    {
      name: 'lists nested 60 deep, again and again',
      markdown: fill(`${Array.from({ length: 60 }, (_, level) => `${'  '.repeat(level)}- item`).join('\n')}\n\n`),
      shown: plain('nesting'),
    },
    { name: 'lists nested 4 deep on one line, many', markdown: fill('- - - - a\n\n'), shown: plain('markup') },
    { name: 'tiny list items', markdown: fill('- a\n'), shown: plain('markup') },
    { name: 'tiny list items just inside the limits', markdown: justInside((count) => '- a\n'.repeat(count)), shown: markdown },
    {
      name: 'nested lists just inside the limits',
      markdown: justInside((count) => `${Array.from({ length: 8 }, (_, level) => `${'  '.repeat(level)}- item`).join('\n')}\n\n`.repeat(count)),
      shown: markdown,
    },
  ]),
  // Tables and other blocks by the thousand.
  ...group('blocks', [
    {
      name: 'wide table',
      markdown: `${half('|a').slice(0, TARGET / 3)}|\n${half('|-').slice(0, TARGET / 3)}|\n${half('|b').slice(0, TARGET / 3)}|`,
      shown: plain('markup'),
    },
    { name: 'long table', markdown: `| a | b | c | d |\n|---|---|---|---|\n${series((index) => `| ${index} | x | y | z |`, '\n')}`, shown: plain('markup') },
    {
      name: 'table just inside the limits',
      markdown: justInside((count) => `\n\n| a | b | c | d |\n|---|---|---|---|\n${'| 1 | x | y | z |\n'.repeat(count)}`),
      shown: markdown,
    },
    { name: 'tiny paragraphs', markdown: fill('a\n\n'), shown: plain('markup') },
    { name: 'tiny headings', markdown: fill('# a\n'), shown: plain('markup') },
    { name: 'thematic breaks `***`', markdown: fill('***\n'), shown: plain('emphasis') },
    { name: 'code spans', markdown: fill('`a` '), shown: plain('markup') },
    { name: 'code spans just inside the limits', markdown: justInside((count) => '`a` '.repeat(count)), shown: markdown },
    { name: 'code block of short lines', markdown: `\`\`\`\n${fill('a\n', 8)}\`\`\``, shown: plain('markup') },
    { name: 'code block just inside the limits', markdown: justInside((count) => `\`\`\`\n${'a\n'.repeat(count)}\`\`\`\n\n`), shown: markdown },
  ]),
  // Raw HTML, for the browser's parser and DOMPurify.
  ...group('html', [
    { name: 'nested `<div>`', markdown: fill('<div>'), shown: plain('html') },
    { name: 'nested `<a href>`', markdown: `x ${fill('<a href="/x">', 2)}`, shown: plain('html') },
    { name: 'nested tables `<table><tr><td>`', markdown: fill('<table><tr><td>'), shown: plain('html') },
    {
      name: 'formatting tags left open, many paragraphs',
      markdown: `${series((index) => `<b title="${index}">`).slice(0, TARGET / 2)}\n\n${fill('x\n\n', TARGET / 2)}`,
      shown: plain('html'),
    },
    { name: 'inline tags left open `<span>`', markdown: `x ${fill('<span>', 2)}`, shown: plain('html') },
    { name: 'closed inline tags `<i>a</i>`', markdown: fill('<i>a</i> '), shown: plain('html') },
    { name: 'one tag, many attributes', markdown: `x <b ${series((index) => `a${index}=${index}`, ' ')}>y</b>`, shown: plain('html') },
    { name: 'HTML comments', markdown: fill('a <!-- c --> '), shown: plain('html') },
    { name: 'unclosed tag starts `<a <a`', markdown: fill('<a '), shown: plain('html') },
    { name: 'closed tags just inside the limits', markdown: justInside((count) => '<i>a</i> '.repeat(count)), shown: markdown },
    {
      name: 'nested tags just inside the limits',
      markdown: justInside((count) => `${'<div>'.repeat(32)}a${'</div>'.repeat(32)}\n\n`.repeat(count)),
      shown: markdown,
    },
    {
      name: 'open formatting just inside the limits',
      markdown: justInside((count) => `${Array.from({ length: 32 }, (_, index) => `<b title="${index}">`).join('')}\n\n${'x\n\n'.repeat(count)}`),
      shown: markdown,
    },
  ]),
  // Everything else: references, one huge line, backticks, escapes, and past the size limit.
  ...group('other', [
    { name: 'character references', markdown: fill('&amp;&#x41;&copy;&bogus; '), shown: markdown },
    { name: 'one line of words', markdown: fill('word '), shown: markdown },
    { name: 'one line without spaces', markdown: fill('x'), shown: markdown },
    { name: 'backtick storm', markdown: series((index) => `${'`'.repeat(1 + (index % 700))} x`, ' '), shown: markdown },
    { name: 'escapes `\\*\\[\\_`', markdown: fill('\\*\\[\\_\\`'), shown: plain('emphasis') },
    { name: 'past the size limit', markdown: fill('Plain words in a paragraph.\n\n').repeat(9), shown: plain('size') },
  ]),
];
