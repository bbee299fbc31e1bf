/**
 * Frees array buffers now rather than at a garbage collection that an idle thread may never run:
 * each is transferred in a message to a port that is then closed, so the message, and the memory
 * with it, is dropped (the arrays over them become empty). A buffer that cannot be transferred is
 * left to the collector. The search worker thread uses it too.
 */
export function releaseBuffers(buffers: readonly ArrayBufferLike[]): void {
  const { port1, port2 } = new MessageChannel();
  try {
    port1.postMessage(
      null,
      buffers.filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer),
    );
  } catch {
    // Detached already, or not transferable: the garbage collector's, as any other.
  }
  port1.close();
  port2.close();
}
