/**
 * The instance URL a user typed, made canonical, and the URLs derived from it (API endpoints and
 * the web page of a conversation).
 */
import * as l10n from '@vscode/l10n';
import { API_PATH } from '../contract/legacyWire';
import { DeepSearchError } from './errors';
import type { Conversation } from '../model/conversation';

declare const parsed: unique symbol;

/**
 * An instance URL as `parseInstanceUrl` made it canonical. Parsed once, where the URL arrives (the
 * sign-in's input, the setting, the launch environment, the local engine): whatever takes this type
 * needs no parsing of its own, and a raw string cannot be passed by mistake.
 */
export type InstanceUrl = string & { readonly [parsed]: true };

/**
 * `https://host[:port][/prefix]` without trailing slashes, query, fragment or credentials.
 * A bare host gets `https://`; a pasted API path (`/.api/...`) is dropped; a path prefix is kept.
 * Throws a `configuration` DeepSearchError that says what to type instead.
 */
export function parseInstanceUrl(input: string): InstanceUrl {
  const trimmed = input.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw invalidInstanceUrl(input);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw invalidInstanceUrl(input);
  }
  const path = url.pathname.replace(/\/\.api(\/.*)?$/, '').replace(/\/+$/, '');
  return `${url.origin}${path}` as InstanceUrl;
}

function invalidInstanceUrl(input: string): DeepSearchError {
  // Only the scheme is echoed: the input may hold credentials.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(input.trim())?.[1];
  const message =
    scheme && !/^https?$/i.test(scheme)
      ? l10n.t('The instance URL is a {0}: address — use an http:// or https:// address such as https://sourcegraph.example.com.', scheme)
      : l10n.t('The instance URL is not a valid web address — use an http:// or https:// address such as https://sourcegraph.example.com.');
  return new DeepSearchError('configuration', message);
}

/** `<instance>/.api/deepsearch/v1[/segments…][?query]`; segments are percent-encoded. */
export function apiUrl(instanceUrl: string, segments: ReadonlyArray<string | number> = [], query?: Record<string, string | number | boolean | undefined>): URL {
  const path = segments.map((segment) => `/${encodeURIComponent(String(segment))}`).join('');
  const url = new URL(`${instanceUrl}${API_PATH}${path}`);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) {
      url.searchParams.set(key, String(value));
    }
  }
  return url;
}

/**
 * The page where a person can read the conversation in a browser: the server's `share_url` when
 * it is an http(s) URL (its host may be the instance's external name), else
 * `<instance>/deepsearch/<read_token>`, else undefined.
 */
export function conversationWebUrl(instanceUrl: string, conversation: Pick<Conversation, 'shareUrl' | 'readToken'>): string | undefined {
  if (conversation.shareUrl) {
    try {
      const share = new URL(conversation.shareUrl, `${instanceUrl}/`);
      if (share.protocol === 'https:' || share.protocol === 'http:') {
        return share.toString();
      }
    } catch {
      // Fall through to building the URL from the read token.
    }
  }
  return conversation.readToken ? `${instanceUrl}/deepsearch/${encodeURIComponent(conversation.readToken)}` : undefined;
}
