/**
 * Which addresses the panel shows as links: those the sanitiser allows (`SAFE_URI`) and the host
 * then opens (`linkTarget`: http(s) pages, mail addresses, paths on the instance). Any other link in
 * an answer keeps its text but loses its address, and with it the look of a link, and says why in
 * its tooltip: a link that looks like one but opens nothing (or only a refusal) misleads.
 */
import { linkTarget } from '../model/linkTarget';

/** http(s), mailto and relative links (instance paths such as `/github.com/org/repo`); nothing else. */
export const SAFE_URI = /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.:-]|$))/i;

/**
 * Relative links are resolved against the signed-in instance; whether one is refused depends only
 * on its own form (a path from the root is opened, anything else relative is not), so any instance
 * answers the question.
 */
const ANY_INSTANCE = 'https://instance.invalid';

/** A path from the instance's root (not `//host`): `linkTarget` opens every one, on the instance. */
const ROOT_PATH = /^\/(?!\/)/;

/** True for an href the panel shows as a link: the sanitiser keeps it and the host opens it. */
export function isOpenableHref(href: string): boolean {
  // Same control-character and whitespace stripping as the sanitiser applies before its check.
  const stripped = href.replace(/[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u2029\u205F\u3000]/g, '');
  if (stripped.length === 0 || !SAFE_URI.test(stripped)) return false;
  // Most links of an answer are such paths: answered without parsing them (an answer holds thousands).
  return ROOT_PATH.test(href.trim()) || linkTarget(href, ANY_INSTANCE).kind !== 'refused';
}
