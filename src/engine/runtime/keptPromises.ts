/**
 * A few results kept by key, most recently used last: a read that many requests want at once (a
 * commit's tree listing, the files a filter allows) is made once and shared. A read that fails is
 * not kept; past `limit`, the least recently used go.
 */
export function keptPromise<T>(kept: Map<string, Promise<T>>, key: string, limit: number, make: () => Promise<T>): Promise<T> {
  const found = kept.get(key);
  if (found) {
    kept.delete(key);
    kept.set(key, found);
    return found;
  }
  const made = make();
  kept.set(key, made);
  made.catch(() => {
    if (kept.get(key) === made) kept.delete(key);
  });
  for (const oldest of kept.keys()) {
    if (kept.size <= limit) break;
    kept.delete(oldest);
  }
  return made;
}
