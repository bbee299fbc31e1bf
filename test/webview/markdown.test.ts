import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { answerMarkdown } from './answerMarkdown';
import { HOSTILE_MARKDOWN } from './fixtures';
import type { MarkdownDom } from './markdownProbe';
import { usePanelEnvironment } from './panelHarness';

/**
 * Markdown without raw HTML, covering what marked's renderer writes and the places where text,
 * URLs and attributes need care (character references, escapes, unsafe or odd URLs, quotes).
 */
const CONSTRUCTS: Record<string, string> = {
  headings: '# One\n## Two *em*\n### Three `code`\n#### Four\n##### Five\n###### Six\n\nSetext\n===\n\nSub\n---',
  paragraphs: 'First line\nsoft break  \nhard break\\\nbackslash break\n\nSecond paragraph.',
  emphasis: '*em* _em_ **strong** __strong__ ***both*** ~~del~~ ~single~ **a *b* c** *a **b** c* snake_case_word',
  codeSpans: '`a` `` b`c `` `  padded  ` `<b>not bold</b>` `a &amp; b` `|`',
  fences: '```ts\nconst a = 1 < 2 && "x";\n```\n\n```\nno language\n\n\n```\n\n~~~python extra words\nprint("hi")\n~~~\n\n```\n```\n\n    indented\n    code',
  oddLanguages: '```c&amp;\nx\n```\n\n```&#99;\nx\n```\n\n```"><script>\nx\n```\n\n```ts{.class}\nx\n```\n\n```' + 'a'.repeat(45) + '\nx\n```',
  lists: '- one\n- two\n  - nested\n    - deeper\n- three\n\n1. first\n2. second\n\n3. start three\n4. four\n\n0. zero\n\n* star\n\n+ plus',
  looseLists: '- loose one\n\n- loose two\n\n  continued paragraph\n\n  ```\n  code in item\n  ```\n\n- > quote in item',
  taskLists: '- [x] done\n- [ ] todo **bold**\n- not a task\n\n1. [x] ordered task\n\n- [ ] loose task\n\n  more',
  tables:
    '| left | center | right | none |\n|:-----|:------:|------:|------|\n| `a|b` | **b** | [c](/c) | |\n| 1 | 2 | 3 | 4 |\n\n| only header |\n|---|\n\n| a | b |\n|---|---|\n| one cell |',
  blockquotes: '> quoted\n> > nested\n>\n> - list in quote\n>\n> ```\n> code in quote\n> ```\n\n---\n\n***',
  links:
    '[plain](https://example.com) [relative](/github.com/org/repo/-/blob/a.ts?L1-2#x) [with title](https://e.com "A \\"title\\" & more")' +
    " [single](https://e.com 'it''s') [paren](https://e.com (paren title)) [empty]() [spaces](<a b c>)" +
    ' [query](https://e.com/?a=1&b=2&amp;c=3) [unicode](https://e.com/ä ö) [mail](mailto:a@example.com)',
  unsafeLinks:
    '[js](javascript:alert(1)) [JS](JaVaScRiPt:alert(1)) [entity](java&#x73;cript:alert(1)) [tab](java\tscript:x)' +
    ' [data](data:text/html,hi) [vb](vbscript:x) [ctrl](&#1;javascript:x) [spaced]( javascript:x) [file](file:///etc/passwd)' +
    ' [title](https://e.com "--> />") [gt](https://e.com "a > b")',
  autolinks: '<https://example.com/a&amp;b> <mailto:a@b.co> <javascript:alert(1)> www.example.com https://x.example/p?q=1. a@example.com',
  references: '[ref][one] [collapsed][] [shortcut]\n\n[one]: https://example.com/one "One"\n[collapsed]: /local\n[shortcut]: <https://e.com/s c>',
  images:
    '![png](data:image/png;base64,iVBORw0KGgo= "t") ![upper](DATA:image/png;base64,AA) ![gif](data:image/gif;base64,R0lGOD)' +
    ' ![remote](https://evil.example/pixel.png) ![svg](data:image/svg+xml;base64,PHN2Zz4=) ![alt with *em* and `code`](/x.png)' +
    ' ![quote"alt](x"onerror="alert(1)) [![linked](data:image/png;base64,AA)](https://e.com)',
  references2: '&amp; &lt;b&gt; &copy; &noti; &notin; &#0; &#x80; &#128512; &bogus; & alone &&',
  escapes: '\\*not em\\* \\<b\\> \\& \\[not link\\](x) \\`tick\\` \\\\ backslash',
  quotes: 'He said "hi" and it\'s 1 < 2 and a > b, <3 and a<b.',
  brTags: 'line<br>break<br/>and<br />more\n\n| a | b |\n|---|---|\n| x<br>y | z |',
  whitespace: '  leading spaces\n\ttab\n\n\u00a0nbsp line\n\ntrailing spaces   ',
  unicode: 'emoji 😀, combining e\u0301, RTL \u202e text, zero\u200bwidth, surrogate \ud800 alone',
  surrogateLink: '[bad](https://e.com/\ud800) ![bad](\ud800.png)',
  nesting: '**[bold link](https://e.com)** [**link bold**](https://e.com) [link `code`](https://e.com) [see www.x.com](https://y.com)',
  empty: '',
  onlySpace: '   \n\n  ',
  // The security tests show it in the panel; here: it is built, and as the sanitiser would.
  hostile: HOSTILE_MARKDOWN,
};

/** Answers with raw HTML: the sanitiser's to judge, shown exactly as before. */
const RAW_HTML: Record<string, string> = {
  inlineTag: 'Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, <b>bold</b>.',
  blockTag: '<details>\n<summary>More</summary>\n\nSome **markdown** inside.\n\n</details>',
  comment: 'Before <!-- a comment --> after.',
  hostile: '<img src=x onerror=alert(1)> <a href="javascript:alert(1)">x</a>',
  nul: 'text with a \u0000 NUL',
};

interface Compared {
  built: boolean;
  /** What the panel shows. */
  dom: MarkdownDom;
  /** What the sanitiser makes of marked's HTML, as is and without the newlines between blocks. */
  sanitised: MarkdownDom;
  sanitisedBlocks: MarkdownDom;
  html: string;
}

function domRender(page: Page, markdown: string): Promise<Compared> {
  return page.evaluate((input) => {
    const probe = window.__markdownProbe;
    const { built, ...dom } = probe.render(input);
    return { built, dom, sanitised: probe.sanitised(input), sanitisedBlocks: probe.sanitisedWithoutBlockNewlines(input), html: dom.html };
  }, markdown);
}

/** Small seeded generator for mixed documents. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('answer Markdown: the DOM builder and the sanitiser agree', function () {
  this.timeout(60_000);
  const env = usePanelEnvironment({ probeEntry: path.join(__dirname, 'markdownProbe.ts') });

  it('builds the DOM the sanitiser makes of marked’s HTML, for every construct without raw HTML', async () => {
    const panel = await env.open();
    for (const [name, markdown] of Object.entries(CONSTRUCTS)) {
      const rendering = await domRender(panel.page, markdown);
      assert.equal(rendering.built, true, `${name}: built without the sanitiser`);
      assert.deepEqual(rendering.dom, rendering.sanitisedBlocks, `${name}: same DOM`);
    }
    assert.deepEqual(panel.pageErrors, []);
  });

  it('builds the same DOM for long, realistic answers', async () => {
    const panel = await env.open();
    for (const [bytes, seed] of [
      [2_000, 1],
      [20_000, 2],
      [120_000, 3],
    ] as const) {
      const rendering = await domRender(panel.page, answerMarkdown(bytes, seed));
      assert.equal(rendering.built, true);
      assert.deepEqual(rendering.dom, rendering.sanitisedBlocks, `answer of ${bytes} bytes`);
    }
  });

  it('builds the same DOM for mixed-up pieces of every construct', async () => {
    const panel = await env.open();
    const next = random(7);
    const pieces = Object.values(CONSTRUCTS).flatMap((markdown) => markdown.split(/(\n+)/));
    const documents = Array.from({ length: 150 }, () =>
      Array.from({ length: 2 + Math.floor(next() * 12) }, () => pieces[Math.floor(next() * pieces.length)]).join(next() < 0.5 ? '\n' : ''),
    );
    const result = await panel.page.evaluate((inputs) => {
      const mismatches: string[] = [];
      let built = 0;
      for (const input of inputs) {
        const rendering = window.__markdownProbe.render(input);
        const sanitised = rendering.built ? window.__markdownProbe.sanitisedWithoutBlockNewlines(input) : window.__markdownProbe.sanitised(input);
        if (rendering.built) built++;
        if (rendering.html !== sanitised.html || rendering.textNodes !== sanitised.textNodes) mismatches.push(input);
      }
      return { mismatches, built };
    }, documents);
    assert.deepEqual(result.mismatches, []);
    assert.ok(result.built >= documents.length / 2, `most documents are built, not sanitised (${result.built} of ${documents.length})`);
  });

  it('lays out exactly as the sanitiser’s DOM with the panel’s styles: the left-out newlines show nothing', async () => {
    const panel = await env.open();
    for (const [name, markdown] of [...Object.entries(CONSTRUCTS), ['answer', answerMarkdown(20_000, 4)] as const]) {
      const [rendered, sanitised] = await panel.page.evaluate(
        (input) => [window.__markdownProbe.layout(input, 'rendered'), window.__markdownProbe.layout(input, 'sanitised')],
        markdown,
      );
      assert.ok(rendered.length > 0 || markdown.trim() === '', `${name}: something to lay out`);
      assert.deepEqual(rendered, sanitised, name);
    }
  });

  it('hands answers with raw HTML (or a NUL) to the sanitiser, whose DOM they show', async () => {
    const panel = await env.open();
    for (const [name, markdown] of Object.entries(RAW_HTML)) {
      const rendering = await domRender(panel.page, markdown);
      assert.equal(rendering.built, false, `${name}: sanitised`);
    }
    // What the sanitiser makes of them, spelled out (the builder was not involved).
    const inline = await domRender(panel.page, RAW_HTML.inlineTag);
    assert.equal(inline.html, '<p>Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, <b>bold</b>.</p>\n');
    const hostile = await domRender(panel.page, RAW_HTML.hostile);
    assert.equal(hostile.html, '<p><img> <a title="Not a link: addresses like this one are not opened from answers.">x</a></p>\n');
  });

  it('renders into the panel’s container exactly what it renders on its own, also when raw HTML comes late', async () => {
    const panel = await env.open();
    const late = `${answerMarkdown(20_000, 5)}\n\nAnd finally <kbd>raw</kbd> HTML.`;
    const inputs = { ...CONSTRUCTS, ...Object.fromEntries(Object.entries(RAW_HTML).map(([name, markdown]) => [`raw ${name}`, markdown])), late };
    for (const [name, markdown] of Object.entries(inputs)) {
      const [into, alone] = await panel.page.evaluate(
        (input) => [window.__markdownProbe.renderInto(input), window.__markdownProbe.render(input)] as const,
        markdown,
      );
      assert.deepEqual(into, { html: alone.html, textNodes: alone.textNodes }, name);
    }
    assert.deepEqual(panel.pageErrors, []);
  });

  it('keeps only safe links and inline raster images when it builds the DOM itself', async () => {
    const panel = await env.open();
    const unsafe = await domRender(panel.page, CONSTRUCTS.unsafeLinks);
    const hrefs = await panel.page.evaluate((html) => {
      const container = document.createElement('div');
      container.innerHTML = html;
      return Array.from(container.querySelectorAll('a'), (link) => [link.textContent, link.getAttribute('href'), link.getAttribute('title')]);
    }, unsafe.html);
    // A link whose address is removed says why in its tooltip (see neutralisedLinks.test.ts).
    const why = 'Not a link: addresses like this one are not opened from answers.';
    assert.deepEqual(hrefs, [
      ['js', null, why],
      ['JS', null, why],
      ['entity', null, why],
      ['data', null, why],
      ['vb', null, why],
      ['ctrl', null, why],
      ['spaced', null, why],
      ['file', null, why],
      ['title', 'https://e.com', null],
      ['gt', 'https://e.com', 'a > b'],
    ]);
    const images = await domRender(panel.page, CONSTRUCTS.images);
    const sources = await panel.page.evaluate((html) => {
      const container = document.createElement('div');
      container.innerHTML = html;
      return Array.from(container.querySelectorAll('img'), (image) => [image.getAttribute('alt'), image.getAttribute('src')]);
    }, images.html);
    assert.deepEqual(sources, [
      ['png', 'data:image/png;base64,iVBORw0KGgo='],
      ['upper', null],
      ['gif', 'data:image/gif;base64,R0lGOD'],
      ['remote', null],
      ['svg', null],
      ['alt with em and code', null],
      ['quote"alt', null],
      ['linked', 'data:image/png;base64,AA'],
    ]);
  });
});
