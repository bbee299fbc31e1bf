/** VS Code's own ripgrep, as the extension finds it, in the VS Code that `npm run setup:vscode` installs. */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { ripgrepInVSCode } from '../../src/vscode/engine/ripgrepPath';

export const CODE_SERVER_APP_ROOT = path.resolve(__dirname, '../../.vscode-test/node_modules/code-server/lib/vscode');

/** Its path; the suites that use it need it (npm test installs it with setup:vscode before the unit tests). */
export function vscodeRipgrep(): string {
  const found = ripgrepInVSCode(CODE_SERVER_APP_ROOT);
  assert.ok(found, `no ripgrep under ${CODE_SERVER_APP_ROOT}: run npm run setup:vscode`);
  return found;
}
