/**
 * Deterministic, realistic answer Markdown of a given size, shaped like Deep Search answers:
 * headings, paragraphs with inline code and links to files at lines, bullet and numbered lists,
 * fenced TypeScript blocks and tables. The same seed always gives the same text.
 */

const REPO = 'github.com/acme/payments';
const FILES = [
  'src/api/poller.ts',
  'src/api/client.ts',
  'src/store/conversationStore.ts',
  'src/vscode/conversationPanels.ts',
  'src/engine/search/index.ts',
  'src/webview/markdown.ts',
  'lib/retry/backoff.go',
  'internal/ledger/transfer.go',
  'packages/ui/src/Table.tsx',
  'services/billing/invoice_test.py',
];
const IDENTIFIERS = [
  'nextInterval',
  'PollScheduler',
  'refreshToken',
  'ConversationStore',
  'applyQuestions',
  'retryAfter',
  'MAX_BACKOFF_MS',
  'parseWireQuestion',
  'ledgerEntry',
  'withTimeout',
  'isWatched',
  'InvoiceBatch',
];
const WORDS = (
  'the poller backs off when the panel is hidden and resumes at the short interval once a reader ' +
  'returns each request carries the token only in its header so nothing leaks into logs the store ' +
  'keeps one entry per conversation and merges server updates by question id while errors double ' +
  'the delay up to a ceiling a cancelled question stops polling at once and the status bar counts ' +
  'running questions from the same store which also drives the tree view and its badges'
).split(' ');

/** Small, fast, seeded PRNG (mulberry32): reproducible text without a dependency. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function answerMarkdown(targetBytes: number, seed = 1): string {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const count = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const fileLink = (): string => {
    const file = pick(FILES);
    const start = count(1, 400);
    return `[${file}](/${REPO}/-/blob/${file}?L${start}-${start + count(2, 40)})`;
  };
  const sentence = (): string => {
    const words = Array.from({ length: count(8, 18) }, () => pick(WORDS));
    const roll = next();
    if (roll < 0.3) words.splice(count(1, words.length - 1), 0, `\`${pick(IDENTIFIERS)}\``);
    else if (roll < 0.5) words.splice(count(1, words.length - 1), 0, `in ${fileLink()}`);
    else if (roll < 0.6) words.splice(count(1, words.length - 1), 0, `**${pick(WORDS)} ${pick(WORDS)}**`);
    const text = words.join(' ');
    return `${text[0].toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = (): string => Array.from({ length: count(2, 5) }, sentence).join(' ');
  const list = (ordered: boolean): string => Array.from({ length: count(3, 7) }, (_, index) => `${ordered ? `${index + 1}.` : '-'} ${sentence()}`).join('\n');
  const codeBlock = (): string => {
    const name = pick(IDENTIFIERS);
    const lines = [`export function ${name}(attempt: number, options: RetryOptions = {}): number {`];
    for (let line = count(4, 18); line > 0; line--) {
      const roll = next();
      if (roll < 0.3) lines.push(`  const ${pick(IDENTIFIERS)}${line} = Math.min(options.max ?? 30_000, 2 ** attempt * 250);`);
      else if (roll < 0.5) lines.push(`  if (attempt > ${count(2, 9)} && !options.${pick(IDENTIFIERS)}) return -1; // ${pick(WORDS)} ${pick(WORDS)}`);
      else if (roll < 0.7) lines.push(`  logger.debug(\`${pick(WORDS)} \${attempt} <${pick(WORDS)}> & "${pick(WORDS)}"\`);`);
      else lines.push(`  await ${pick(IDENTIFIERS)}(attempt, { signal: options.signal, delayMs: ${count(100, 5000)} });`);
    }
    lines.push('  return attempt;', '}');
    return ['```ts', ...lines, '```'].join('\n');
  };
  const table = (): string => {
    const rows = [`| setting | default | where |`, `| --- | ---: | --- |`];
    for (let row = count(3, 8); row > 0; row--) {
      rows.push(`| \`${pick(IDENTIFIERS)}\` | ${count(1, 120)} s | ${fileLink()} |`);
    }
    return rows.join('\n');
  };

  const blocks: string[] = [];
  let size = 0;
  let section = 0;
  const add = (block: string): void => {
    blocks.push(block);
    size += block.length + 2;
  };
  while (size < targetBytes) {
    section++;
    add(`${section === 1 ? '##' : pick(['##', '###'])} ${section}. ${sentence().slice(0, -1)}`);
    add(paragraph());
    for (let block = count(2, 4); block > 0 && size < targetBytes; block--) {
      const roll = next();
      if (roll < 0.3) add(paragraph());
      else if (roll < 0.5) add(list(next() < 0.4));
      else if (roll < 0.75) add(codeBlock());
      else if (roll < 0.9) add(table());
      else add(`> ${sentence()}`);
    }
  }
  return blocks.join('\n\n');
}
