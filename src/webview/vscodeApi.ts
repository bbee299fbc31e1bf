/**
 * The typed door to the extension host: the only place that touches `acquireVsCodeApi()`, so every
 * message the webview posts is a `WebviewMessage` and the persisted state is a `PanelViewState`.
 */
import type { PanelViewState, WebviewMessage } from '../protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export interface HostBridge {
  postMessage(message: WebviewMessage): void;
  getState(): PanelViewState | undefined;
  setState(state: PanelViewState): void;
}

/** VS Code allows `acquireVsCodeApi()` once per page; call this once, from `main.ts`. */
export function connectToHost(): HostBridge {
  const api = acquireVsCodeApi();
  return {
    postMessage: (message) => api.postMessage(message),
    getState: () => asViewState(api.getState()),
    setState: (state) => api.setState(state),
  };
}

/** State comes back from an earlier version of this page: check its shape before trusting it. */
export function asViewState(value: unknown): PanelViewState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const state = value as Record<string, unknown>;
  if (typeof state.conversationId !== 'number') return undefined;
  const pending = state.pendingFollowup as Record<string, unknown> | null | undefined;
  const pendingFollowup =
    typeof pending === 'object' &&
    pending !== null &&
    typeof pending.requestId === 'number' &&
    Number.isSafeInteger(pending.requestId) &&
    pending.requestId > 0 &&
    typeof pending.text === 'string'
      ? { requestId: pending.requestId, text: pending.text }
      : undefined;
  return {
    conversationId: state.conversationId,
    draft: typeof state.draft === 'string' ? state.draft : '',
    scrollTop: typeof state.scrollTop === 'number' && Number.isFinite(state.scrollTop) ? Math.max(0, state.scrollTop) : 0,
    ...(pendingFollowup ? { pendingFollowup } : {}),
  };
}
