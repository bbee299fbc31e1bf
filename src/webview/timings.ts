/**
 * Names of the performance entries the panel records, shown by the webview's developer tools and
 * read by the rendering benchmark (which is why they live apart from the DOM code).
 */

/** Rendering one answer: Markdown parse, sanitising, and insertion into its question. */
export const ANSWER_RENDERED = 'Deep Search: answer rendered';
