/**
 * Every user-visible string of the panel in one place, each through `l10n.t` with its English text
 * as the key (as `vscode.l10n.t` on the host), so `@vscode/l10n-dev export` finds them all.
 *
 * Getters and functions, never values computed at import: `main.ts` loads the host's bundle with
 * `l10n.config` after the modules are evaluated but before anything renders, and a string read at
 * import time would stay English.
 */
import * as l10n from '@vscode/l10n';

export const strings = {
  get untitled() {
    return l10n.t('Deep Search conversation');
  },
  get loading() {
    return l10n.t('Loading conversation…');
  },
  get readOnly() {
    return l10n.t('Read-only');
  },
  get readOnlyNote() {
    return l10n.t('This is a shared conversation: you can read it but not ask follow-ups, cancel or delete.');
  },
  get actionsLabel() {
    return l10n.t('Conversation actions');
  },
  actions: {
    get copyShareLink() {
      return l10n.t('Copy share link');
    },
    get openInBrowser() {
      return l10n.t('Open in browser');
    },
    get export() {
      return l10n.t('Export as Markdown');
    },
    get delete() {
      return l10n.t('Delete conversation');
    },
  },
  get question() {
    return l10n.t('Question');
  },
  get citations() {
    return l10n.t('Citations');
  },
  openGeneratedFile: (name: string) => l10n.t('Open {0}', name),
  saveGeneratedFile: (name: string) => l10n.t('Save {0} As…', name),
  get previewLoading() {
    return l10n.t('Reading the cited lines…');
  },
  previewFrom: (from: 'workspace' | 'instance') => (from === 'workspace' ? l10n.t('from your workspace') : l10n.t('from the instance')),
  previewMore: (count: number) =>
    count === 1 ? l10n.t('… and 1 more line: open the link to see it') : l10n.t('… and {0} more lines: open the link to see them', count),
  get diagram() {
    return l10n.t('Diagram');
  },
  get showDiagramSource() {
    return l10n.t('Show source');
  },
  get showDiagram() {
    return l10n.t('Show diagram');
  },
  get drawingDiagram() {
    return l10n.t('Drawing the diagram…');
  },
  diagramFailed: (reason: string) => l10n.t('This diagram could not be drawn: {0}', reason),
  diagramAlt: (firstLine: string) => l10n.t('Diagram: {0}', firstLine),
  get openAnswerAsMarkdown() {
    return l10n.t('Open as Markdown');
  },
  get openAnswerAsMarkdownTitle() {
    return l10n.t('Open this answer, its citations and sources as Markdown in an editor, where the screen reader and Accessible View work');
  },
  state: {
    get pending() {
      return l10n.t('Waiting to start');
    },
    get processing() {
      return l10n.t('Searching');
    },
    /** A question that was running when its conversation was deleted. */
    get gone() {
      return l10n.t('No longer available');
    },
    get completed() {
      return l10n.t('Answered');
    },
    get failed() {
      return l10n.t('Failed');
    },
    get canceled() {
      return l10n.t('Canceled');
    },
  },
  get elapsed() {
    return l10n.t('Elapsed time');
  },
  get cancel() {
    return l10n.t('Cancel');
  },
  get cancelLabel() {
    return l10n.t('Cancel this question');
  },
  get canceling() {
    return l10n.t('Canceling…');
  },
  get reasoning() {
    return l10n.t('Reasoning');
  },
  reasoningSteps: (count: number) => (count === 1 ? l10n.t('Reasoning (1 step)') : l10n.t('Reasoning ({0} steps)', count)),
  get noReasoningYet() {
    return l10n.t('Getting started…');
  },
  get noAnswer() {
    return l10n.t('The service finished without an answer.');
  },
  get sources() {
    return l10n.t('Sources');
  },
  get stats() {
    return l10n.t('Statistics');
  },
  statsLabels: {
    get time() {
      return l10n.t('Time');
    },
    get toolCalls() {
      return l10n.t('Tool calls');
    },
    get tokens() {
      return l10n.t('Tokens');
    },
    get credits() {
      return l10n.t('Credits');
    },
  },
  /** Read by screen readers before the bare duration of the time stat: "Time: 42s". */
  get timeStatPrefix() {
    return l10n.t('Time:');
  },
  get followups() {
    return l10n.t('Suggested follow-ups');
  },
  askSuggested: (text: string) => l10n.t('Ask: {0}', text),
  get failedTitle() {
    return l10n.t('The question failed');
  },
  get progressSummary() {
    return l10n.t('What Deep Search found before it stopped');
  },
  get askNarrower() {
    return l10n.t('Ask a Narrower Question');
  },
  get askNarrowerTitle() {
    return l10n.t('Start a new conversation with this question, to make it narrower before it is sent');
  },
  get canceledTitle() {
    return l10n.t('The question was canceled');
  },
  get canceledDefault() {
    return l10n.t('No answer was produced because the question was canceled.');
  },
  errorKind: (kind: string) => l10n.t('Error kind: {0}', kind),
  retryIn: (wait: string) => l10n.t('You can ask again in {0}.', wait),
  get retryNow() {
    return l10n.t('You can ask again now.');
  },
  get copyCode() {
    return l10n.t('Copy code');
  },
  get copied() {
    return l10n.t('Copied');
  },
  get followupLabel() {
    return l10n.t('Ask a follow-up question');
  },
  get followupPlaceholder() {
    return l10n.t('Ask a follow-up…');
  },
  get send() {
    return l10n.t('Send');
  },
  sendHint: (mac: boolean) => (mac ? l10n.t('⌘+Enter to send') : l10n.t('Ctrl+Enter to send')),
  get busyNote() {
    return l10n.t('You can ask a follow-up once the current question has finished or been canceled.');
  },
  get sending() {
    return l10n.t('Sending…');
  },
  /** Why an answer shows as plain text (see markdownBudget.ts). */
  plainTextAnswer: {
    get size() {
      return l10n.t('Shown as plain text: this answer is too long to render as Markdown.');
    },
    get emphasis() {
      return l10n.t('Shown as plain text: this answer has too many emphasis markers to render as Markdown in reasonable time.');
    },
    get nesting() {
      return l10n.t('Shown as plain text: this answer nests lists or quotes too deeply to render as Markdown.');
    },
    get markup() {
      return l10n.t('Shown as plain text: this answer has too much markup (links, lists, table cells, code) to render as Markdown in reasonable time.');
    },
    get html() {
      return l10n.t('Shown as plain text: this answer has too much HTML, or HTML nested too deeply, to render in reasonable time.');
    },
  },
  /** The button under a long plain-text answer that shows its next part (see plainText.ts). */
  plainTextMore: (percentShown: number) => l10n.t('Show more ({0}% shown)', percentShown),
  /** The tooltip of a link whose address the panel does not open (see linkPolicy.ts), shown as text. */
  get linkNotOpened() {
    return l10n.t('Not a link: addresses like this one are not opened from answers.');
  },
  get removedNote() {
    return l10n.t('This conversation no longer exists.');
  },
  announce: {
    completed: (title: string) => l10n.t('Answer ready: {0}', title),
    failed: (message: string) => l10n.t('The question failed: {0}', message),
    get canceled() {
      return l10n.t('The question was canceled.');
    },
    get started() {
      return l10n.t('Searching for an answer.');
    },
    get followupSent() {
      return l10n.t('Follow-up sent.');
    },
    followupFailed: (message: string) => l10n.t('The follow-up was not sent: {0}', message),
  },
};
