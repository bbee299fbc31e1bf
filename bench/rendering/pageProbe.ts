/**
 * The rendering benchmark's probe, loaded into the real panel page just before the panel's own
 * bundle (with the page's nonce; see `probeScript` in test/webview/panelHarness.ts). It is built
 * into a bundle of its own so the shipped webview bundle carries no benchmark code or globals.
 *
 * - `messageTimes`: for every message the page receives, the time from the start of its dispatch
 *   to the end of the panel's handler, including the microtasks that handler queued. The first
 *   listener here is registered before the panel's (this script runs first); the second after it
 *   (on DOMContentLoaded, once the panel's script has run), and listeners fire in that order, with
 *   a microtask checkpoint after each.
 * - `takeMeasures`: the panel's own performance measures (the answer it rendered, see
 *   src/webview/timings.ts).
 * - `markedParse`: the baseline, `marked.parse` alone (the library's default GFM options).
 */
import { marked } from 'marked';

export interface MessageTime {
  type: string;
  ms: number;
  /**
   * With `forceLayout` set: the style and layout the message left for the browser's next frame,
   * forced and timed right after the handler (so the next frame has none of it left to do).
   */
  layoutMs?: number;
}

export interface RenderProbe {
  messageTimes: MessageTime[];
  /** Set to force (and time) style and layout right after each message: see `MessageTime.layoutMs`. */
  forceLayout: boolean;
  /** Inputs kept in the page, so a baseline run does not ship megabytes over the wire. */
  inputs: Record<string, string>;
  /** Milliseconds `marked.parse` takes on `inputs[key]`, starting from a collected heap. */
  markedParse(key: string): number;
  /**
   * A full garbage collection (Chromium runs with `--expose-gc`), before each timed step, so that
   * no step pays for the garbage of an earlier one.
   */
  collectGarbage(): void;
  /** Durations of the performance measures called `name` since the last call, oldest first. */
  takeMeasures(name: string): number[];
}

declare global {
  interface Window {
    __renderProbe: RenderProbe;
  }
}

let dispatchStarted = Number.NaN;
const probe: RenderProbe = {
  messageTimes: [],
  forceLayout: false,
  inputs: {},
  markedParse(key) {
    const input = probe.inputs[key];
    if (input === undefined) throw new Error(`no input ${key}`);
    probe.collectGarbage();
    const started = performance.now();
    const html = marked.parse(input, { async: false });
    const elapsed = performance.now() - started;
    // Use the output so the work cannot be skipped.
    if (html.length === 0) throw new Error('marked returned nothing');
    return elapsed;
  },
  takeMeasures(name) {
    const durations = performance.getEntriesByName(name, 'measure').map((entry) => entry.duration);
    performance.clearMeasures(name);
    return durations;
  },
  collectGarbage() {
    const gc = (window as { gc?: () => void }).gc;
    if (!gc) throw new Error('Chromium runs without --expose-gc');
    gc();
  },
};
window.__renderProbe = probe;

window.addEventListener('message', () => {
  dispatchStarted = performance.now();
});
document.addEventListener('DOMContentLoaded', () => {
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    const data = event.data as { type?: unknown } | null;
    const type = typeof data?.type === 'string' ? data.type : 'other';
    const handled = performance.now();
    const time: MessageTime = { type, ms: handled - dispatchStarted };
    if (probe.forceLayout) {
      // Reading a layout property makes the browser compute every style and layout it owes now.
      void document.documentElement.getBoundingClientRect().height;
      void document.body.offsetHeight;
      time.layoutMs = performance.now() - handled;
    }
    probe.messageTimes.push(time);
  });
});
