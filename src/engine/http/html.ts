/** HTML the engine writes itself (the share page, the sign-in pages): text made safe for it. */

/** Text as HTML character data or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
