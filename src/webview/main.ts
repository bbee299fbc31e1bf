/**
 * Webview entry point: loads the translations, connects to the host, says `ready`, then applies
 * host messages to the conversation panel. Nothing renders before the first `snapshot`.
 */
import type { HostMessage } from '../protocol';
import { ConversationPanel } from './conversationPanel';
import { loadTranslations } from './l10n';
import { interceptLinks } from './links';
import { connectToHost } from './vscodeApi';

// First of all: every string the panel shows is looked up after this.
loadTranslations(document);

const host = connectToHost();
const root = document.getElementById('app') ?? document.body.appendChild(document.createElement('main'));
const mac = /Mac|iPhone|iPad/.test(navigator.userAgent);
const panel = new ConversationPanel(root, host, host.getState(), mac);

interceptLinks(document, (href) => host.postMessage({ type: 'openLink', href }));

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = event.data;
  if (typeof message !== 'object' || message === null || typeof (message as { type?: unknown }).type !== 'string') {
    return;
  }
  dispatch(message as HostMessage);
});

function dispatch(message: HostMessage): void {
  switch (message.type) {
    case 'snapshot':
      panel.showSnapshot(message.conversation, message.canEdit, message.now, message.instanceUrl);
      break;
    case 'questions':
      panel.applyQuestions(message.summary, message.questions, message.now);
      break;
    case 'reply':
      panel.reply(message.requestId, message.outcome);
      break;
    case 'removed':
      panel.showRemoved(message.message);
      break;
    case 'preview':
      panel.previewArrived(message.previewId, message.preview);
      break;
    default: {
      // Compile-time: every HostMessage is handled. Run time: anything else is ignored.
      const unknownMessage: never = message;
      void unknownMessage;
    }
  }
}

host.postMessage({ type: 'ready' });
