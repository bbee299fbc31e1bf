/**
 * The one interface every request of the client goes through: the HTTP client (http.ts), the tool
 * client's MCP exchanges (tools/toolClient.ts) and OAuth all send through a `Transport`. On Node it
 * is undici through the extension's dispatcher (undiciTransport.ts: proxies, CA certificates); in
 * VS Code for the Web it is the browser's `fetch` (fetchTransport.ts). A transport only carries
 * bytes: the limits (time, size, retries, redirects refused across origins, cancellation) are the
 * client's, above it, and so hold the same on both.
 */

export interface TransportRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** By lower-case name, a repeated header's values joined. */
  headers: Record<string, string>;
  /** Read once, as it arrives; leaving the loop early releases the connection. */
  body: AsyncIterable<Uint8Array>;
  /** Stops reading a body that is not wanted (a redirect's, a refusal's rest). */
  discard(): void;
}

export interface Transport {
  /** One request and its answer, whatever the status; redirects are answers, never followed. */
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Requests under way finish; then its connections close. */
  close(): Promise<void>;
  /** Closes at once, cutting off what is under way (tests). */
  destroy(): Promise<void>;
}

/** Bytes as UTF-8 text. */
export function utf8Text(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder('utf-8');
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}

/** Text as UTF-8 bytes. */
export function utf8Bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
