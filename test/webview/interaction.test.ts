import assert from 'node:assert/strict';
import { completedQuestion, conversation, processingQuestion, question, questionsUpdate, snapshot } from './fixtures';
import { tabTo, usePanelEnvironment, type PanelPage } from './panelHarness';

describe('conversation panel: interaction', function () {
  this.timeout(30_000);
  const env = usePanelEnvironment();

  async function openAnswered(): Promise<PanelPage> {
    const panel = await env.open();
    await panel.send(snapshot(conversation([completedQuestion(1)])));
    return panel;
  }

  it('copies a code block through the host with copyText', async () => {
    const panel = await openAnswered();
    const copy = panel.page.getByRole('button', { name: 'Copy code' });
    await copy.click();
    assert.deepEqual(await panel.postedOfType('copyText'), [
      { type: 'copyText', text: 'export function nextInterval(visible: boolean): number {\n  return visible ? 2_000 : 30_000;\n}\n' },
    ]);
    assert.equal(await panel.page.locator('.copy-code').getAttribute('aria-label'), 'Copied');
  });

  it('asks a suggested follow-up with askFollowup', async () => {
    const panel = await openAnswered();
    await panel.page.getByRole('button', { name: 'Ask: What happens after a reload?' }).click();
    assert.deepEqual(await panel.postedWithoutIds('askFollowup'), [{ type: 'askFollowup', text: 'What happens after a reload?' }]);
  });

  describe('follow-up box', () => {
    it('sends the draft with Ctrl+Enter (and Cmd+Enter), trimmed', async () => {
      const panel = await openAnswered();
      const box = panel.page.getByRole('textbox', { name: 'Ask a follow-up question' });
      await box.fill('  And how is it tested?  ');
      await box.press('Control+Enter');
      assert.deepEqual(await panel.postedWithoutIds('askFollowup'), [{ type: 'askFollowup', text: 'And how is it tested?' }]);

      await panel.replyToLast('askFollowup', { ok: false, message: 'try again' });
      await box.press('Meta+Enter');
      const sent = await panel.postedOfType('askFollowup');
      assert.equal(sent.length, 2);
      assert.notEqual(sent[0]?.requestId, sent[1]?.requestId, 'each request has its own id');
    });

    it('does not send an empty or blank draft', async () => {
      const panel = await openAnswered();
      const box = panel.page.locator('textarea');
      await box.press('Control+Enter');
      await box.fill('   \n\t ');
      await box.press('Control+Enter');
      await panel.page.getByRole('button', { name: 'Send' }).click();
      assert.deepEqual(await panel.postedOfType('askFollowup'), []);
    });

    it('plain Enter makes a new line instead of sending', async () => {
      const panel = await openAnswered();
      const box = panel.page.locator('textarea');
      await box.fill('first line');
      await box.press('Enter');
      await box.pressSequentially('second line');
      assert.equal(await box.inputValue(), 'first line\nsecond line');
      assert.deepEqual(await panel.postedOfType('askFollowup'), []);
    });

    it('is disabled while a question is processing, says why, and comes back when it finishes', async () => {
      const panel = await env.open();
      const value = conversation([completedQuestion(1), processingQuestion(2)]);
      await panel.send(snapshot(value));
      const box = panel.page.locator('textarea');
      assert.ok(await box.isDisabled());
      assert.ok(await panel.page.getByRole('button', { name: 'Send' }).isDisabled());
      assert.equal(
        await panel.page.locator('.followup-note').textContent(),
        'You can ask a follow-up once the current question has finished or been canceled.',
      );
      assert.ok(await panel.page.locator('.followup-suggestion').first().isDisabled(), 'suggestions wait too');

      await panel.send(questionsUpdate(value, [completedQuestion(2)]));
      assert.ok(await box.isEnabled());
      assert.ok(await panel.page.locator('.followup-note').isHidden());
      assert.ok(await panel.page.locator('.followup-suggestion').first().isEnabled());
    });

    it('is disabled for a pending question too', async () => {
      const panel = await env.open();
      await panel.send(snapshot(conversation([question(1, { state: 'pending' })])));
      assert.ok(await panel.page.locator('textarea').isDisabled());
    });

    it('is absent in a read-only view', async () => {
      const panel = await env.open();
      await panel.send(snapshot(conversation([completedQuestion(1)]), { canEdit: false }));
      assert.equal(await panel.page.locator('textarea, .send-button').count(), 0);
      assert.match((await panel.page.locator('.readonly-note').textContent())!, /shared conversation/);
    });

    it('keeps the draft and shows the message when the follow-up fails', async () => {
      const panel = await openAnswered();
      const box = panel.page.locator('textarea');
      await box.fill('Why 30 seconds?');
      await box.press('Control+Enter');
      assert.ok(await box.isDisabled(), 'no second send while the first is on its way');
      await box.press('Control+Enter');
      assert.equal((await panel.postedOfType('askFollowup')).length, 1);

      await panel.replyToLast('askFollowup', { ok: false, message: 'Quota exceeded: try again after 12:00.' });
      assert.equal(await box.inputValue(), 'Why 30 seconds?');
      assert.ok(await box.isEnabled());
      const error = panel.page.locator('.followup-error');
      assert.equal(await error.textContent(), 'Quota exceeded: try again after 12:00.');
      assert.equal(await error.getAttribute('role'), 'alert');
      assert.ok(await error.isVisible());
    });

    it('clears the draft once the host says the follow-up was sent', async () => {
      const panel = await openAnswered();
      const box = panel.page.locator('textarea');
      await box.fill('Why 30 seconds?');
      await box.press('Control+Enter');
      await panel.send({ type: 'reply', requestId: 987_654, outcome: { ok: true } });
      assert.equal(await box.inputValue(), 'Why 30 seconds?', 'a reply to no request of the page changes nothing');
      await panel.replyToLast('askFollowup', { ok: true });
      assert.equal(await box.inputValue(), '');
      assert.equal((await panel.savedState())?.draft, '');
      assert.equal((await panel.savedState())?.pendingFollowup, undefined);
    });

    it('clears a draft that was sent before the page was reloaded, when told after the reload', async () => {
      const panel = await openAnswered();
      const box = panel.page.locator('textarea');
      await box.fill('Why 30 seconds?');
      await box.press('Control+Enter');
      const [sent] = await panel.postedOfType('askFollowup');
      // The page is discarded (its panel hidden) before the answer comes: it reloads with the draft.
      await panel.reload();
      await panel.send(snapshot(conversation([completedQuestion(1)])));
      assert.equal(await panel.page.locator('textarea').inputValue(), 'Why 30 seconds?');
      await panel.send({ type: 'reply', requestId: sent.requestId, outcome: { ok: true } });
      assert.equal(await panel.page.locator('textarea').inputValue(), '');
    });

    it('keeps the user’s own draft when a suggested follow-up was the one sent', async () => {
      const panel = await openAnswered();
      const box = panel.page.locator('textarea');
      await box.fill('my own question');
      const suggestion = panel.page.locator('.followup-suggestion').first();
      const suggested = (await suggestion.textContent())!.trim();
      await suggestion.click();
      assert.deepEqual(await panel.postedWithoutIds('askFollowup'), [{ type: 'askFollowup', text: suggested }]);
      await panel.replyToLast('askFollowup', { ok: true });
      assert.equal(await box.inputValue(), 'my own question');
    });
  });

  describe('keyboard', () => {
    it('Tab reaches the cancel button and Enter activates it', async () => {
      const panel = await env.open();
      await panel.send(snapshot(conversation([completedQuestion(1), processingQuestion(2)])));
      assert.ok(await tabTo(panel.page, '.question[data-question-id="2"] .cancel-button'));
      await panel.page.keyboard.press('Enter');
      assert.deepEqual(await panel.postedWithoutIds('cancel'), [{ type: 'cancel', questionId: 2 }]);
    });

    it('lets Cancel be pressed again when the host replies that cancelling failed', async () => {
      const panel = await env.open();
      await panel.send(snapshot(conversation([completedQuestion(1), processingQuestion(2)])));
      const cancel = panel.page.locator('.question[data-question-id="2"] .cancel-button');
      await cancel.click();
      assert.ok(await cancel.isDisabled(), 'waiting for the host');
      await panel.replyToLast('cancel', { ok: false, message: 'The instance is unavailable right now.' });
      assert.ok(await cancel.isEnabled(), 'can be pressed again');
      assert.equal(await cancel.locator('.button-label').textContent(), 'Cancel');
      await cancel.click();
      const posted = await panel.postedOfType('cancel');
      assert.equal(posted.length, 2);
      assert.notEqual(posted[0]?.requestId, posted[1]?.requestId);
    });

    it('Tab reaches the suggested follow-ups and Space or Enter asks them', async () => {
      const panel = await openAnswered();
      assert.ok(await tabTo(panel.page, '.followup-suggestion'));
      await panel.page.keyboard.press('Space');
      await panel.replyToLast('askFollowup', { ok: false, message: 'busy' });
      assert.ok(await tabTo(panel.page, '.followup-suggestion:nth-child(2)'));
      await panel.page.keyboard.press('Enter');
      assert.deepEqual(await panel.postedWithoutIds('askFollowup'), [
        { type: 'askFollowup', text: 'How is the interval configured?' },
        { type: 'askFollowup', text: 'What happens after a reload?' },
      ]);
    });

    it('Tab reaches the header actions and the follow-up box, each with a visible focus outline', async () => {
      const panel = await openAnswered();
      assert.ok(await tabTo(panel.page, '.action-export'));
      const outline = await panel.page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
      assert.equal(outline, 'solid');
      await panel.page.keyboard.press('Enter');
      assert.deepEqual(await panel.postedOfType('action'), [{ type: 'action', action: 'export' }]);
      assert.ok(await tabTo(panel.page, 'textarea'));
    });
  });

  it('announces status changes in a polite live region', async () => {
    const panel = await env.open();
    const value = conversation([processingQuestion(1)]);
    await panel.send(snapshot(value));
    await panel.send(questionsUpdate(value, [completedQuestion(1)]));
    const region = panel.page.locator('[role="status"][aria-live="polite"]');
    await panel.page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent !== '');
    assert.equal(await region.textContent(), 'Answer ready: How the poller backs off');
  });

  it('on removed shows a notice, disables every input and stops showing the running question as running', async () => {
    const panel = await env.open();
    await panel.send(snapshot(conversation([completedQuestion(1), processingQuestion(2)])));
    await panel.send({ type: 'removed', message: 'This conversation was deleted on the server.' });
    const page = panel.page;
    assert.equal(await page.locator('.notice').textContent(), 'This conversation was deleted on the server.');
    assert.equal(await page.locator('.notice').getAttribute('role'), 'alert');
    assert.ok(await page.locator('textarea').isDisabled());
    assert.ok(await page.getByRole('button', { name: 'Send' }).isDisabled());
    // The question that was running no longer runs: no spinner, no ticking clock, no Cancel.
    const running = page.locator('.question').nth(1);
    assert.equal((await running.locator('.question-status').innerText()).trim(), 'No longer available');
    assert.equal(await page.locator('.codicon-modifier-spin').count(), 0);
    assert.equal(await page.locator('.elapsed').count(), 0);
    assert.equal(await page.locator('.cancel-button').count(), 0);
    for (const suggestion of await page.locator('.followup-suggestion').all()) assert.ok(await suggestion.isDisabled());
    for (const action of await page.locator('.conversation-actions button').all()) assert.ok(await action.isDisabled());
    assert.equal(await page.locator('.followup-note').textContent(), 'This conversation no longer exists.');
  });
});
