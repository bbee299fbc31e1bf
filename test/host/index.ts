/**
 * Entry of the host tests: VS Code loads this module in its real extension host (see
 * scripts/test-host.mjs) and awaits `run()`. Mocha comes from the project's node_modules.
 */
import { readFileSync } from 'node:fs';
import Mocha from 'mocha';

interface HostTestOptions {
  grep?: string;
}

export function run(): Promise<void> {
  const optionsFile = process.env.DEEP_SEARCH_TEST_OPTIONS;
  const options: HostTestOptions = optionsFile ? JSON.parse(readFileSync(optionsFile, 'utf8')) : {};
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, forbidOnly: true, reporter: 'spec' });
  if (options.grep) mocha.grep(options.grep);
  // Suites register themselves when required, so mocha's globals must exist first.
  mocha.suite.emit('pre-require', globalThis, 'host-tests', mocha);
  /* eslint-disable @typescript-eslint/no-require-imports */
  require('./contributions.test');
  require('./signIn.test');
  require('./conversations.test');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} host test(s) failed`)) : resolve()));
  });
}
