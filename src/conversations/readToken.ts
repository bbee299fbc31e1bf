/**
 * Read tokens as people paste them: the bare UUID, or a share link whose last path segment is one
 * (`https://host/deepsearch/<uuid>`, possibly with a query or fragment).
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function readTokenFromInput(input: string): string | undefined {
  const text = input.trim();
  if (UUID.test(text)) return text.toLowerCase();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const last = url.pathname.split('/').filter(Boolean).pop() ?? '';
  return UUID.test(last) ? last.toLowerCase() : undefined;
}
