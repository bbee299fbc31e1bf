/**
 * Conversations in every state the panel must show, in the domain model's shape (what the host
 * sends after normalising a server's reply).
 */
import { emptyStats, type Conversation, type Question, type Turn } from '../../src/model/conversation';
import type { HostMessage } from '../../src/protocol';

/** When the conversation's first question was asked (host clock). */
export const T0 = Date.parse('2025-06-01T12:00:00.000Z');
export const CONVERSATION_ID = 140;

export function turn(reasoning: string, secondsAfterT0: number, role = 'assistant'): Turn {
  return { role, reasoning, time: T0 + secondsAfterT0 * 1000 };
}

export function question(id: number, overrides: Partial<Question> = {}): Question {
  const text = overrides.text ?? `How does feature ${id} work?`;
  return {
    id,
    conversationId: CONVERSATION_ID,
    text,
    createdAt: new Date(T0).toISOString(),
    updatedAt: new Date(T0).toISOString(),
    state: 'processing',
    sources: [],
    turns: [{ role: 'user', reasoning: text, time: T0 }],
    stats: emptyStats(),
    suggestedFollowups: [],
    ...overrides,
  };
}

export function processingQuestion(id: number, overrides: Partial<Question> = {}): Question {
  const base = question(id, overrides);
  return {
    ...base,
    state: 'processing',
    turns: overrides.turns ?? [
      ...base.turns,
      turn('Searching the repository for the poller and its interval settings.', 3),
      turn('Reading src/api/poller.ts to see how backoff is computed.', 9, 'tool'),
    ],
  };
}

export const ANSWER_MARKDOWN = [
  'The poller **backs off** when nobody is looking. See [poller.ts](https://sourcegraph.example.com/github.com/org/repo/-/blob/src/api/poller.ts?L12-30) and the [store](/github.com/org/repo/-/blob/src/store.ts).',
  '',
  '- polls every `2s` while visible',
  '- every 30s when hidden',
  '',
  '```ts',
  'export function nextInterval(visible: boolean): number {',
  '  return visible ? 2_000 : 30_000;',
  '}',
  '```',
  '',
  '| state | interval |',
  '| --- | --- |',
  '| visible | 2 s |',
  '| hidden | 30 s |',
].join('\n');

export function completedQuestion(id: number, overrides: Partial<Question> = {}): Question {
  return {
    ...question(id, overrides),
    state: 'completed',
    title: 'How the poller backs off',
    answer: ANSWER_MARKDOWN,
    turns: [turn('Searching the repository for the poller.', 3), turn('Reading src/api/poller.ts.', 9, 'tool')],
    sources: [
      { type: 'Repository', link: '/github.com/org/repo', label: 'github.com/org/repo' },
      {
        type: 'File',
        link: '/github.com/org/repo/-/blob/src/api/poller.ts',
        label: 'src/api/poller.ts',
        repoName: 'github.com/org/repo',
        path: 'src/api/poller.ts',
      },
    ],
    stats: {
      ...emptyStats(),
      timeMillis: 42_500,
      toolCalls: 7,
      totalTokens: 12_345,
      promptTokens: 10_000,
      completionTokens: 2_345,
      credits: 3,
    },
    suggestedFollowups: ['How is the interval configured?', 'What happens after a reload?'],
    ...overrides,
  };
}

export function failedQuestion(id: number, overrides: Partial<Question> = {}): Question {
  return {
    ...question(id, overrides),
    state: 'failed',
    error: {
      kind: 'TokenLimitExceeded',
      title: 'Token limit exceeded',
      message: 'The question needed more context than the model allows. Try a narrower question.',
    },
    ...overrides,
  };
}

export function canceledQuestion(id: number, overrides: Partial<Question> = {}): Question {
  return {
    ...question(id, overrides),
    state: 'canceled',
    answer: 'PARTIAL ANSWER THAT MUST NOT BE SHOWN',
    error: { kind: 'Cancelled', title: 'Cancelled', message: 'Canceled by the user.' },
    ...overrides,
  };
}

export function conversation(questions: Question[], overrides: Partial<Conversation> = {}): Conversation {
  return {
    id: CONVERSATION_ID,
    questions,
    createdAt: new Date(T0).toISOString(),
    updatedAt: new Date(T0).toISOString(),
    shareUrl: 'https://sourcegraph.example.com/deepsearch/abc123',
    isOwner: true,
    ...overrides,
  };
}

export function snapshot(value: Conversation, options: { canEdit?: boolean; now?: number } = {}): Extract<HostMessage, { type: 'snapshot' }> {
  return { type: 'snapshot', conversation: value, canEdit: options.canEdit ?? true, now: options.now ?? T0 + 65_000 };
}

export function questionsUpdate(value: Conversation, questions: Question[], now = T0 + 70_000): Extract<HostMessage, { type: 'questions' }> {
  const { questions: _all, ...summary } = value;
  void _all;
  return { type: 'questions', summary, questions, now };
}

/**
 * Hostile Markdown with no raw HTML in it, so the panel builds its DOM itself instead of handing
 * marked's HTML to the sanitiser: every trick is in links, images, code, entities and escapes.
 * Each one that runs pushes its name to `window.__hostile`.
 */
export const HOSTILE_MARKDOWN = [
  '[md js](javascript:window.__hostile.push("md-js")) [cased](JaVaScRiPt:window.__hostile.push("cased"))',
  "[entity js](java&#x73;cript:window.__hostile.push('entity')) [control](&#1;javascript:window.__hostile.push('control'))",
  "<javascript:window.__hostile.push('autolink')> [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  '[safe title](https://example.com/ok "\\" onmouseover=\\"window.__hostile.push(\'title\')")',
  '![remote](https://evil.example/pixel.png) ![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  '![quote](x"onerror="window.__hostile.push(\'img\')) ![inline png](data:image/png;base64,iVBORw0KGgo=)',
  '',
  '&lt;img src=x onerror="window.__hostile.push(\'entity-text\')"&gt; \\<script>window.__hostile.push("escaped")\\</script>',
  '',
  "`</code><img src=x onerror=window.__hostile.push('codespan')>`",
  '',
  '```x"onmouseover="window.__hostile.push(\'lang\')',
  '</code></pre><img src=x onerror=window.__hostile.push("fence")>',
  '```',
  '',
  '| cell |',
  '| --- |',
  "| &lt;script&gt;window.__hostile.push('cell')&lt;/script&gt; |",
].join('\n');
