/** What the authorization server keeps for a while (codes, tokens, consents): bounded maps. */

/**
 * Drops the entries `expired` says can no longer be used, then the oldest ones (insertion order)
 * until fewer than `max` remain, so one entry more still fits.
 */
export function sweep<K, V>(map: Map<K, V>, expired: (value: V) => boolean, max: number): void {
  for (const [key, value] of map) if (expired(value)) map.delete(key);
  for (const key of map.keys()) {
    if (map.size < max) break;
    map.delete(key);
  }
}
