/**
 * Draws a Mermaid diagram to SVG text: the Mermaid library Sourcegraph's own page uses, in its
 * strict mode (labels are text, no click callbacks, no links) with HTML labels off. A chunk of its
 * own, imported by the page only when an answer has a diagram (`diagrams.ts`), which shows the SVG
 * as an image: nothing in it can run or load anything.
 */
import mermaid from 'mermaid';

/** Settings a diagram's own `%%{init: …}%%` directive may not change. */
const SECURE_KEYS = [
  'secure',
  'securityLevel',
  'startOnLoad',
  'maxTextSize',
  'maxEdges',
  'htmlLabels',
  'flowchart',
  'themeCSS',
  'fontFamily',
  'dompurifyConfig',
  'suppressErrorRendering',
  'arrowMarkerAbsolute',
  'legacyMathML',
];

/** Diagram text longer than this is not drawn (Mermaid's own bound, tightened). */
export const MAX_DIAGRAM_CHARACTERS = 20_000;

let configuredTheme: string | undefined;
/** Mermaid draws one diagram at a time. */
let queue: Promise<unknown> = Promise.resolve();

/** The diagram as SVG text; rejects with Mermaid's reason when the text is not a diagram it can draw. */
export function renderDiagram(id: string, source: string, dark: boolean): Promise<string> {
  const drawn = queue.then(async () => {
    const theme = dark ? 'dark' : 'default';
    if (configuredTheme !== theme) {
      mermaid.initialize({
        startOnLoad: false,
        securityLevel: 'strict',
        htmlLabels: false,
        flowchart: { htmlLabels: false },
        theme,
        maxTextSize: MAX_DIAGRAM_CHARACTERS,
        maxEdges: 500,
        suppressErrorRendering: true,
        secure: SECURE_KEYS,
      });
      configuredTheme = theme;
    }
    const { svg } = await mermaid.render(id, source);
    return svg;
  });
  queue = drawn.catch(() => undefined);
  return drawn;
}
