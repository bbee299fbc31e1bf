/**
 * Entry of the host tests: VS Code loads this module in its real extension host (see
 * scripts/test-host.mjs) and awaits `run()`. Mocha comes from the project's node_modules.
 *
 * The suites run first; when they pass, the reload check leaves a question running and reloads
 * the window. VS Code then loads this module again in the new extension host, which runs only the
 * second half of the reload check and reports the result.
 */
import Mocha from 'mocha';
import { hostTestOptions } from './extensionApi';
import { defineReloadSuite, isAfterReload } from './reload.test';

function runSuites(load: () => void): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, forbidOnly: true, reporter: 'spec' });
  const { grep } = hostTestOptions();
  if (grep) mocha.grep(grep);
  // Suites register themselves when loaded, so mocha's globals must exist first.
  mocha.suite.emit('pre-require', globalThis, 'host-tests', mocha);
  load();
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} host test(s) failed`)) : resolve()));
  });
}

export async function run(): Promise<void> {
  if (isAfterReload()) {
    await runSuites(defineReloadSuite);
    return;
  }
  await runSuites(() => {
    /* eslint-disable @typescript-eslint/no-require-imports -- evaluated after mocha's globals exist */
    require('./bundles.test');
    require('./contributions.test');
    require('./signIn.test');
    require('./conversations.test');
    require('./localEngine.test');
    require('./tools.test');
    require('./oauth.test');
    require('./chat.test');
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  if (!hostTestOptions().grep) await runSuites(defineReloadSuite);
}
