/**
 * The sign-in pages a person sees in the browser: the consent page of the authorization code grant,
 * the device grant's page where the user code is entered, and the outcome of each. Plain forms, no
 * script; every string from a client or a user is escaped, and nothing may frame the pages.
 */
import { OAUTH_SCOPES } from '../../contract/oauthWire';
import { TOKEN_SCOPES } from '../../contract/tokenScopes';
import { escapeHtml } from '../http/html';

/** Served with every sign-in page: its own styles and forms only, and no framing (clickjacking). */
export function signInPageCsp(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`;
}

export interface Account {
  id: number;
  name: string;
}

/** Why each scope is asked for, in the words of what it lets the client do. */
const SCOPE_MEANINGS: Readonly<Record<string, string>> = {
  [TOKEN_SCOPES.all]: 'everything your account can do through the API',
  [TOKEN_SCOPES.read]: 'read your Deep Search conversations',
  [TOKEN_SCOPES.write]: 'ask Deep Search questions, follow up, cancel and delete conversations',
  [TOKEN_SCOPES.mcp]: 'use the code tools (search, read files, find definitions) as you',
  [OAUTH_SCOPES.openid]: 'know who you are',
  [OAUTH_SCOPES.profile]: 'see your user name',
  [OAUTH_SCOPES.email]: 'see your email address',
  [OAUTH_SCOPES.offlineAccess]: 'stay signed in (refresh its access without asking again)',
};

export function consentPage(options: {
  nonce: string;
  action: string;
  requestId: string;
  clientName: string;
  dynamic: boolean;
  scopes: readonly string[];
  accounts: readonly Account[];
}): string {
  const scopes = options.scopes
    .map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(SCOPE_MEANINGS[scope] ?? 'an unknown scope')}</li>`)
    .join('');
  const body = [
    `<h1>Authorize ${escapeHtml(options.clientName)}</h1>`,
    options.dynamic ? '<p class="note">This application registered itself with this engine; no administrator vouches for it.</p>' : '',
    '<p>It asks to:</p>',
    `<ul>${scopes}</ul>`,
    `<form method="post" action="${escapeHtml(options.action)}">`,
    `<input type="hidden" name="request" value="${escapeHtml(options.requestId)}">`,
    accountChoice(options.accounts),
    '<p><button type="submit" name="decision" value="approve" autofocus>Authorize</button> ',
    '<button type="submit" name="decision" value="deny">Deny</button></p>',
    '</form>',
  ].join('\n');
  return page(options.nonce, `Authorize ${options.clientName}`, body);
}

export function devicePage(options: {
  nonce: string;
  action: string;
  userCode?: string;
  accounts: readonly Account[];
  message?: string;
  clientName?: string;
  scopes?: readonly string[];
}): string {
  const asked = options.clientName
    ? `<p>${escapeHtml(options.clientName)} asks to: ${options.scopes?.map((scope) => escapeHtml(SCOPE_MEANINGS[scope] ?? scope)).join('; ') ?? ''}.</p>`
    : '';
  const body = [
    '<h1>Sign in a device</h1>',
    options.message ? `<p class="note">${escapeHtml(options.message)}</p>` : '',
    '<p>Enter the code your application shows (such as <code>BCDF-GHJK</code>).</p>',
    asked,
    `<form method="post" action="${escapeHtml(options.action)}">`,
    `<p><label>Code <input name="user_code" value="${escapeHtml(options.userCode ?? '')}" autocomplete="off" spellcheck="false" maxlength="16" required autofocus></label></p>`,
    accountChoice(options.accounts),
    '<p><button type="submit" name="decision" value="approve">Authorize</button> ',
    '<button type="submit" name="decision" value="deny">Deny</button></p>',
    '</form>',
  ].join('\n');
  return page(options.nonce, 'Sign in a device', body);
}

/** The page after a decision, or a request the engine cannot honour (nothing to redirect to). */
export function outcomePage(nonce: string, title: string, message: string): string {
  return page(nonce, title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}

/** The engine has no browser session: the person picks the account (the first by default). */
function accountChoice(accounts: readonly Account[]): string {
  if (accounts.length <= 1) return `<p>As <strong>${escapeHtml(accounts[0]?.name ?? 'the engine’s user')}</strong>.</p>`;
  const options = accounts
    .map((account, index) => `<option value="${account.id}"${index === 0 ? ' selected' : ''}>${escapeHtml(account.name)}</option>`)
    .join('');
  return `<p><label>As <select name="user">${options}</select></label></p>`;
}

function page(nonce: string, title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)} · Deep Search local engine</title>`,
    `<style nonce="${nonce}">`,
    'body { font: 15px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328; }',
    'h1 { font-size: 1.4rem; } code { background: #f3f4f6; padding: 0 .25em; border-radius: 3px; }',
    '.note { background: #fff8c5; padding: .5rem .75rem; border-radius: 6px; }',
    'button { font: inherit; padding: .4rem 1rem; margin-right: .5rem; }',
    'input, select { font: inherit; padding: .3rem; }',
    '@media (prefers-color-scheme: dark) { body { background: #0d1117; color: #e6edf3; } code { background: #262c36; } .note { background: #3b2e00; } }',
    '</style>',
    '</head>',
    '<body>',
    body,
    '</body>',
    '</html>',
  ].join('\n');
}
