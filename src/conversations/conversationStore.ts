/**
 * The one copy of conversation state in the extension host. Tree, panels, status bar and
 * notifications observe it; none keeps its own. It talks to the server through the client, keeps
 * unfinished conversations polled through the poller, and persists only ids (never answers).
 */
import * as l10n from '@vscode/l10n';
import type { DeepSearchClient } from '../api/client';
import { DeepSearchError, isDeepSearchError } from '../api/errors';
import { conversationWebUrl } from '../api/instance';
import { isUnfinished, withQuestion, type Conversation, type ConversationPage, type SortOrder } from '../model/conversation';
import { ConversationPoller, type PollerClock } from './poller';

export interface StoreChange {
  /** Conversations whose content changed (or appeared). */
  changed: number[];
  /** Conversations that no longer exist. */
  removed: number[];
  /** The listed order, paging or filter changed. */
  listChanged: boolean;
  /** Signed out or switched account: everything before is gone. */
  reset?: boolean;
}

/** Where the store keeps the ids of conversations still running, so polling resumes after a reload. */
export interface RunningIdsMemento {
  load(): number[];
  save(ids: number[]): void;
}

export interface ConversationStoreOptions {
  pageSize?: number;
  /**
   * How many listed conversations are kept while paging on: older pages push the newest ones out
   * (`hasNewer`), so memory stays flat however far the user scrolls. Default 500.
   */
  maxListed?: number;
  watchedIntervalMs?: number;
  hiddenIntervalMs?: number;
  clock?: PollerClock;
  memento?: RunningIdsMemento;
  /** A refresh failed (polling continues with backoff). */
  onPollError?(id: number, error: unknown): void;
}

type Listener<T> = (event: T) => void;

const LIST_SORT: SortOrder = '-updated_at';

export class ConversationStore {
  private client: DeepSearchClient | undefined;
  private readonly conversations = new Map<number, Conversation>();
  private listedIds: number[] = [];
  private cursor: string | undefined;
  private listLoaded = false;
  /** Pages at the top of the list were let go to make room for older ones. */
  private newerDropped = false;
  /** Known from list pages only: nobody opened, asked or polled them, so they may be let go. */
  private readonly listOnly = new Set<number>();
  private readonly maxListed: number;
  private starredOnlyFilter = false;
  private readonly watched = new Set<number>();
  /** How many waiters (not panels) watch each conversation. */
  private readonly waiters = new Map<number, number>();
  /** Other users' conversations opened by read token: only the token reaches them (GET by id is a 404). */
  private readonly sharedReadTokens = new Map<number, string>();
  private readonly changeListeners = new Set<Listener<StoreChange>>();
  private readonly finishListeners = new Set<Listener<Conversation>>();
  private readonly poller: ConversationPoller;
  private readonly pageSize: number;
  private savedRunningKey: string | undefined;
  /** Bumped on every client change so answers for a previous account are dropped. */
  private generation = 0;

  constructor(private readonly options: ConversationStoreOptions = {}) {
    this.pageSize = options.pageSize ?? 50;
    this.maxListed = Math.max(options.maxListed ?? 500, this.pageSize);
    this.poller = new ConversationPoller({
      refresh: async (id) => ((await this.refresh(id)) && isUnfinished(this.conversations.get(id)!) ? 'unfinished' : 'finished'),
      isWatched: (id) => this.isWatched(id),
      onError: (id, error) => options.onPollError?.(id, error),
      clock: options.clock,
      watchedIntervalMs: options.watchedIntervalMs,
      hiddenIntervalMs: options.hiddenIntervalMs,
    });
  }

  /**
   * Switches account or instance (undefined: signed out), dropping all state of the previous one.
   * With `sameAccount` (a client rebuilt for new proxy settings) the state stays.
   */
  setClient(client: DeepSearchClient | undefined, options: { sameAccount?: boolean } = {}): void {
    if (client && this.client && options.sameAccount) {
      this.client = client;
      // Signed in again (after a 401, say): what failed under the old client is tried at once.
      this.poller.retryFailed();
      return;
    }
    const hadClient = this.client !== undefined;
    this.generation++;
    for (const id of this.poller.trackedIds) this.poller.untrack(id);
    this.conversations.clear();
    this.sharedReadTokens.clear();
    this.listOnly.clear();
    this.listedIds = [];
    this.cursor = undefined;
    this.listLoaded = false;
    this.newerDropped = false;
    this.client = client;
    this.emit({ changed: [], removed: [], listChanged: true, reset: hadClient });
    if (client) {
      for (const id of this.options.memento?.load() ?? []) this.poller.track(id, { refreshNow: true });
    }
  }

  get signedIn(): boolean {
    return this.client !== undefined;
  }

  get instanceUrl(): string | undefined {
    return this.client?.instanceUrl;
  }

  onDidChange(listener: Listener<StoreChange>): { dispose(): void } {
    return subscribe(this.changeListeners, listener);
  }

  /** A question finished (completed, failed or cancelled) while the store was watching it run. */
  onDidFinish(listener: Listener<Conversation>): { dispose(): void } {
    return subscribe(this.finishListeners, listener);
  }

  get(id: number): Conversation | undefined {
    return this.conversations.get(id);
  }

  /**
   * Whether the user may only read it (no follow-ups, cancel or delete): the server says they do
   * not own it, or it was opened by read token and the server has not said they do (servers only
   * say who owns a conversation once it has finished).
   */
  isReadOnly(id: number): boolean {
    const isOwner = this.conversations.get(id)?.isOwner;
    return isOwner === false || (isOwner !== true && this.sharedReadTokens.has(id));
  }

  /** The listed conversations, newest update first. */
  get listed(): Conversation[] {
    return this.listedIds.flatMap((id) => this.conversations.get(id) ?? []);
  }

  get hasMore(): boolean {
    return this.cursor !== undefined;
  }

  /** Newer conversations than the first listed one exist but were let go (reload to see them). */
  get hasNewer(): boolean {
    return this.newerDropped;
  }

  get isListLoaded(): boolean {
    return this.listLoaded;
  }

  get starredOnly(): boolean {
    return this.starredOnlyFilter;
  }

  /** How many conversations have a question still running. */
  get runningCount(): number {
    return [...this.conversations.values()].filter(isUnfinished).length;
  }

  async setStarredOnly(starredOnly: boolean): Promise<void> {
    this.starredOnlyFilter = starredOnly;
    await this.refreshList();
  }

  /** Loads the first page again. */
  async refreshList(): Promise<void> {
    const client = this.requireClient();
    const generation = this.generation;
    const page = await client.listConversations({
      pageFirst: this.pageSize,
      sort: LIST_SORT,
      filterIsStarred: this.starredOnlyFilter ? true : undefined,
    });
    if (generation !== this.generation) return;
    this.listedIds = [];
    this.newerDropped = false;
    this.acceptPage(page.conversations, page.nextCursor);
  }

  async loadMore(): Promise<void> {
    if (!this.cursor) return;
    const client = this.requireClient();
    const generation = this.generation;
    let page: ConversationPage;
    try {
      page = await client.listConversations({
        pageFirst: this.pageSize,
        pageAfter: this.cursor,
        sort: LIST_SORT,
        filterIsStarred: this.starredOnlyFilter ? true : undefined,
      });
    } catch (error) {
      // The conversation the cursor names was deleted meanwhile: the list starts over.
      if (isDeepSearchError(error) && error.kind === 'badRequest') return this.refreshList();
      throw error;
    }
    if (generation !== this.generation) return;
    this.acceptPage(page.conversations, page.nextCursor);
  }

  /** Asks a new question; the conversation is in the store (and polled) when this resolves. */
  async ask(question: string): Promise<Conversation> {
    const generation = this.generation;
    const conversation = await this.requireClient().createConversation(question);
    if (generation !== this.generation) throw staleAccountError();
    const listedBefore = this.listedIds;
    this.listedIds = [conversation.id, ...this.listedIds.filter((id) => id !== conversation.id)];
    this.put(conversation, true);
    // A new conversation heads the list: the views show it (a repaint of changed rows would not).
    if (!sameIds(listedBefore, this.listedIds)) this.emit({ changed: [], removed: [], listChanged: true });
    return conversation;
  }

  /**
   * Sends a follow-up. Resolves once the server has the question (it must not be sent again, even
   * when fetching the updated conversation then fails: polling catches up).
   */
  async addFollowup(conversationId: number, question: string): Promise<Conversation> {
    const generation = this.generation;
    const answer = await this.requireClient().postFollowup(conversationId, question);
    if (generation !== this.generation) throw staleAccountError();
    if (answer.kind === 'conversation') {
      this.put(answer.conversation, true);
      return answer.conversation;
    }
    const updated = withQuestion(this.conversations.get(conversationId), conversationId, answer.question);
    this.put(updated, true);
    return updated;
  }

  /** Asks the server to stop a question; resolves with the state it reports, or the current one while it cannot be fetched. */
  async cancel(conversationId: number, questionId: number): Promise<Conversation> {
    const generation = this.generation;
    await this.requireClient().postCancel(conversationId, questionId);
    if (generation !== this.generation) throw staleAccountError();
    try {
      return await this.fetch(conversationId);
    } catch {
      this.poller.track(conversationId, { refreshNow: true });
      return this.conversations.get(conversationId) ?? (await this.load(conversationId));
    }
  }

  async delete(conversationId: number): Promise<void> {
    await this.requireClient().deleteConversation(conversationId);
    this.forget(conversationId);
  }

  /** The conversation from the store, or fetched from the server when the store lacks it. */
  async load(id: number): Promise<Conversation> {
    const known = this.conversations.get(id);
    // A list summary (7.x) does not hold the questions: fetch the conversation itself.
    return known && !known.summaryOnly ? known : await this.fetch(id);
  }

  /** Fetches the current state from the server and publishes it. */
  async fetch(id: number): Promise<Conversation> {
    const generation = this.generation;
    const conversation = await this.getFromServer(id);
    if (generation !== this.generation) throw staleAccountError();
    this.put(conversation, false);
    return conversation;
  }

  /**
   * Conversations whose questions or answers contain `text` (the first 50, newest first). Needs a
   * server with the 7.x API; others reject it with kind `unsupported`.
   */
  async search(text: string): Promise<Conversation[]> {
    const page = await this.requireClient().listConversations({ contentQuery: text, pageFirst: 50 });
    return page.conversations;
  }

  /** The conversation's share link (`<instance>/deepsearch/<read token>`), asking the legacy API for the token when the store lacks it. */
  async shareLink(id: number): Promise<string | undefined> {
    const instanceUrl = this.instanceUrl ?? '';
    const known = this.conversations.get(id);
    if (known?.readToken || known?.shareUrl) return conversationWebUrl(instanceUrl, known);
    return conversationWebUrl(instanceUrl, await this.requireClient().getShareableConversation(id));
  }

  async openShared(readToken: string): Promise<Conversation> {
    const generation = this.generation;
    const conversation = await this.requireClient().getConversationByReadToken(readToken);
    if (generation !== this.generation) throw staleAccountError();
    if (conversation.isOwner !== true) this.sharedReadTokens.set(conversation.id, readToken);
    this.put(conversation, false);
    return conversation;
  }

  setPollIntervals(intervals: { watchedIntervalMs: number; hiddenIntervalMs: number }): void {
    this.poller.setIntervals(intervals);
  }

  /** Someone is (or stopped) looking at a conversation: polls faster while they are. */
  setWatched(id: number, watched: boolean): void {
    if (watched) this.watched.add(id);
    else this.watched.delete(id);
    this.poller.watchersChanged();
  }

  /**
   * Polls a conversation as if a panel showed it, until disposed (for whoever waits on an answer
   * without a panel: chat, agent tools). Counted, so it never takes away a panel's watch.
   */
  watch(id: number): { dispose(): void } {
    this.waiters.set(id, (this.waiters.get(id) ?? 0) + 1);
    this.poller.watchersChanged();
    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        const left = (this.waiters.get(id) ?? 1) - 1;
        if (left > 0) this.waiters.set(id, left);
        else this.waiters.delete(id);
        this.poller.watchersChanged();
      },
    };
  }

  isWatched(id: number): boolean {
    return this.watched.has(id) || this.waiters.has(id);
  }

  dispose(): void {
    this.poller.dispose();
    this.changeListeners.clear();
    this.finishListeners.clear();
  }

  /** The poller's refresh: false when the conversation is gone. */
  private async refresh(id: number): Promise<boolean> {
    const generation = this.generation;
    try {
      const conversation = await this.getFromServer(id);
      if (generation === this.generation) this.put(conversation, false, true);
      return generation === this.generation;
    } catch (error) {
      if (isDeepSearchError(error) && error.kind === 'notFound') {
        this.forget(id);
        return false;
      }
      throw error;
    }
  }

  private getFromServer(id: number): Promise<Conversation> {
    const readToken = this.sharedReadTokens.get(id);
    const client = this.requireClient();
    return readToken ? client.getConversationByReadToken(readToken) : client.getConversation(id);
  }

  private acceptPage(conversations: Conversation[], nextCursor: string | undefined): void {
    const changed: number[] = [];
    const finished: number[] = [];
    for (const conversation of conversations) {
      const before = this.conversations.get(conversation.id);
      if (!before) this.listOnly.add(conversation.id);
      if (!this.listedIds.includes(conversation.id)) this.listedIds.push(conversation.id);
      if (conversation.summaryOnly) {
        // A summary (7.x) says nothing of its questions: it updates the title and time, and one that
        // changed since its conversation was fetched (continued elsewhere) has it fetched again.
        const changedSince = before && !before.summaryOnly && Date.parse(conversation.updatedAt) > Date.parse(before.updatedAt);
        if (this.merge(conversation)) changed.push(conversation.id);
        if (changedSince) this.poller.track(conversation.id, { refreshNow: true });
        continue;
      }
      if (before && isOlder(conversation, before)) continue;
      if (this.merge(conversation)) changed.push(conversation.id);
      if (isUnfinished(conversation)) this.poller.track(conversation.id);
      else if (before && isUnfinished(before)) {
        // The list is the first to show it finished: stop polling and tell, as a poll would have.
        this.poller.untrack(conversation.id);
        finished.push(conversation.id);
      }
    }
    this.cursor = nextCursor;
    this.listLoaded = true;
    this.letGoOfNewestPages();
    this.saveRunning();
    this.emit({ changed, removed: [], listChanged: true });
    for (const id of finished) this.finishListeners.forEach((listener) => listener(this.conversations.get(id)!));
  }

  private put(conversation: Conversation, startedHere: boolean, fromPoll = false): void {
    const before = this.conversations.get(conversation.id);
    // A response that left the server before a newer one we already have (a poll racing a
    // follow-up) must not roll the conversation back or stop polling its new question.
    if (before && isOlder(conversation, before)) return;
    this.listOnly.delete(conversation.id);
    const wasRunning = before ? isUnfinished(before) : startedHere;
    const changed = this.merge(conversation);
    const running = isUnfinished(conversation);
    // The poll's own result must not ask for another refresh at once (that polls back to back);
    // only re-track when someone untracked it while the poll was under way.
    if (!running) this.poller.untrack(conversation.id);
    else if (!fromPoll || !this.poller.isTracking(conversation.id)) this.poller.track(conversation.id, { refreshNow: startedHere });
    const shared = conversation.isOwner === false || this.sharedReadTokens.has(conversation.id);
    const listedNow = !this.listedIds.includes(conversation.id) && this.listLoaded && !shared;
    if (listedNow) this.listedIds.unshift(conversation.id);
    this.saveRunning();
    if (changed || listedNow) this.emit({ changed: [conversation.id], removed: [], listChanged: listedNow });
    if (wasRunning && !running) this.finishListeners.forEach((listener) => listener(conversation));
  }

  /** Stores the conversation; true when it differs from what was there. */
  private merge(conversation: Conversation): boolean {
    const before = this.conversations.get(conversation.id);
    // A list entry may lack fields a fetch had (viewer, quota): keep them.
    // A summary (7.x lists) has no questions: keep those a fetch brought, and the fetch's standing.
    const merged: Conversation = before
      ? conversation.summaryOnly
        ? {
            ...before,
            title: conversation.title ?? before.title,
            updatedAt: conversation.updatedAt || before.updatedAt,
            webUrl: conversation.webUrl ?? before.webUrl,
          }
        : { ...conversation, isOwner: conversation.isOwner ?? before.isOwner, quota: conversation.quota ?? before.quota }
      : conversation;
    if (before && JSON.stringify(before) === JSON.stringify(merged)) return false;
    this.conversations.set(conversation.id, merged);
    return true;
  }

  /** Keeps the list within `maxListed`, letting go of the newest entries nobody has opened. */
  private letGoOfNewestPages(): void {
    const excess = this.listedIds.length - this.maxListed;
    if (excess <= 0) return;
    const dropped = this.listedIds.slice(0, excess);
    this.listedIds = this.listedIds.slice(excess);
    this.newerDropped = true;
    for (const id of dropped) {
      if (!this.listOnly.has(id) || this.poller.isTracking(id) || this.watched.has(id)) continue;
      this.listOnly.delete(id);
      this.conversations.delete(id);
    }
  }

  private forget(id: number): void {
    this.listOnly.delete(id);
    this.poller.untrack(id);
    this.sharedReadTokens.delete(id);
    const existed = this.conversations.delete(id);
    const wasListed = this.listedIds.includes(id);
    this.listedIds = this.listedIds.filter((listed) => listed !== id);
    this.saveRunning();
    if (existed || wasListed) this.emit({ changed: [], removed: [id], listChanged: wasListed });
  }

  /** Writes only when the set of running ids changed (every poll would otherwise write it). */
  private saveRunning(): void {
    const ids = [...this.poller.trackedIds].sort((a, b) => a - b);
    const key = ids.join(',');
    if (key === this.savedRunningKey) return;
    this.savedRunningKey = key;
    this.options.memento?.save(ids);
  }

  private requireClient(): DeepSearchClient {
    if (!this.client) throw new DeepSearchError('configuration', l10n.t('Not signed in to a Deep Search instance — sign in first.'));
    return this.client;
  }

  private emit(change: StoreChange): void {
    for (const listener of this.changeListeners) listener(change);
  }
}

function staleAccountError(): DeepSearchError {
  return new DeepSearchError('configuration', l10n.t('The account changed while this was being sent; the other account has it.'));
}

function isOlder(candidate: Conversation, current: Conversation): boolean {
  if (candidate.questions.length !== current.questions.length) return candidate.questions.length < current.questions.length;
  const candidateTime = Date.parse(candidate.updatedAt);
  const currentTime = Date.parse(current.updatedAt);
  return Number.isFinite(candidateTime) && Number.isFinite(currentTime) && candidateTime < currentTime;
}

function subscribe<T>(listeners: Set<Listener<T>>, listener: Listener<T>): { dispose(): void } {
  listeners.add(listener);
  return { dispose: () => listeners.delete(listener) };
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, index) => id === b[index]);
}
