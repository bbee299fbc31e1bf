/**
 * The links of an answer as the citation check finds them, against the links the panel's own
 * parser makes of the same text (marked with GFM, as src/webview/markdown.ts configures it): the
 * check parses without emphasis and without e-mail addresses, for bounded time, and must not
 * find fewer links or other ones for it.
 */
import assert from 'node:assert/strict';
import { Marked, type Token, type Tokens } from 'marked';
import { decodeReferences, markdownLinks, type MarkdownLink } from '../../../src/engine/answers/markdownLinks';

const panel = new Marked({ gfm: true, breaks: false, async: false });

function panelLinks(text: string): string[] {
  const hrefs: string[] = [];
  const walk = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      if ((token.type === 'link' || token.type === 'image') && !(token as Tokens.Link).href.startsWith('mailto:')) {
        const link = token as Tokens.Link;
        hrefs.push(link.autolink ? link.href : decodeReferences(link.href));
      }
      if (token.type === 'list') walk((token as Tokens.List).items);
      if (token.type === 'table') {
        const table = token as Tokens.Table;
        for (const cell of [...table.header, ...table.rows.flat()]) walk(cell.tokens);
      }
      const children = (token as { tokens?: Token[] }).tokens;
      if (children) walk(children);
    }
  };
  walk(panel.lexer(text));
  return hrefs;
}

function checkedLinks(text: string): string[] {
  const scan = markdownLinks(text);
  assert.ok('links' in scan, JSON.stringify(scan));
  return scan.links.filter((link) => link.form !== 'definition' && link.form !== 'html').map((link) => link.href);
}

const URL = 'http://127.0.0.1:9/github.com/acme/app/-/blob';
const FRAGMENTS = [
  `[a](${URL}/a.js?L1-2)`,
  `[b *c*](${URL}/b.js "title")`,
  `[d](<${URL}/d e.js>)`,
  `![i](${URL}/i.png)`,
  `<${URL}/auto.js>`,
  `${URL}/bare.js?L3`,
  `www.example.com/x`,
  `awww.example.com/${URL}/z.js`,
  `someone@example.com`,
  `[r][ref]`,
  `[ref]`,
  `[ref][]`,
  `\`[code](${URL}/code.js)\``,
  `*emphasis [e](${URL}/e.js)*`,
  `__strong__`,
  `_a_b_c`,
  `~~gone [g](${URL}/g.js)~~`,
  `**[s](${URL}/s.js)**`,
  `\\[not](${URL}/escaped.js)`,
  `[x](${URL}/paren(1).js)`,
  `[y](${URL}/&#45;y.js)`,
  `<a href="${URL}/html.js">h</a>`,
  `[<${URL}/inner.js>](https://example.com/outer)`,
  `[multi\nline](${URL}/m.js)`,
  `[label [nested] brackets](${URL}/n.js)`,
  `[t](${URL}/t.js 'single')`,
  `\n\n\`\`\`js\n[in code](${URL}/c.js)\n\`\`\`\n\n`,
  `\n    [indented code](${URL}/i.js)\n`,
  `${URL}/trailing.js?L1).`,
  `(${URL}/in-parens.js)`,
  `**${URL}/bold.js**`,
  `_${URL}/under.js_`,
  '*',
  '_',
  '`',
  '[',
  ']',
  '(',
  'text',
  'more words',
];
const BLOCKS = ['', '- ', '> ', '1. ', '# ', '| ', '    ', '  - ', '> - ', '- > ', '\t'];

/** The same answers every run (a small linear congruential generator). */
function answers(count: number): string[] {
  let seed = 42;
  const next = (below: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % below;
  };
  return Array.from({ length: count }, () => {
    const lines = Array.from({ length: 1 + next(8) }, () => {
      const words = Array.from({ length: 1 + next(6) }, () => FRAGMENTS[next(FRAGMENTS.length)]);
      const joint = next(3) === 0 ? '' : ' ';
      return `${BLOCKS[next(BLOCKS.length)]}${words.join(joint)}`;
    });
    const table = next(4) === 0 ? `\n\n| a | b |\n| - | - |\n| ${FRAGMENTS[next(FRAGMENTS.length)]} | c |\n` : '';
    return `${lines.join(next(2) ? '\n' : '\n\n')}${table}\n\n[ref]: ${URL}/ref.js\n`;
  });
}

/** Why a link's place in the text is not where its source is, if it is not. */
function misplaced(text: string, link: MarkdownLink): string | undefined {
  const source = text.slice(link.start, link.end);
  const fits =
    link.form === 'inline' || link.form === 'image'
      ? /^!?\[[\s\S]*\)$/.test(source)
      : link.form === 'reference'
        ? /^!?\[[\s\S]*\]$/.test(source)
        : link.form === 'autolink'
          ? source === `<${link.label}>`
          : link.form === 'url'
            ? source === link.label
            : link.form === 'definition'
              ? /^\[[^\]]+\]:/.test(source)
              : source !== '' && decodeReferences(source) === link.href;
  return fits ? undefined : `${link.form} at ${link.start}: ${JSON.stringify(source)}`;
}

describe('the links of an answer, as the panel links them', function () {
  it('finds the same links as the panel on five thousand varied answers', function () {
    for (const answer of answers(5000)) assert.deepEqual(checkedLinks(answer), panelLinks(answer), answer);
  });

  it('places every link where its source is, for the check to rewrite it', function () {
    for (const answer of answers(5000)) {
      const scan = markdownLinks(answer);
      assert.ok('links' in scan);
      assert.deepEqual(
        scan.links.map((link) => misplaced(answer, link)).filter((why) => why !== undefined),
        [],
        answer,
      );
    }
  });
});
