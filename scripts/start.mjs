// `npm start`: builds the engine and serves this repository (a real git repository) on loopback,
// so a newcomer can ask questions about the project's own code. Pass `-- --repo <dir>` to serve others.
//   npm start [-- --repo <dir> …] [-- --pace <ms>]
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const extra = process.argv.slice(2);

const build = spawnSync(process.execPath, [join(root, 'esbuild.mjs'), '--only', 'engine'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const args = [join(root, 'dist', 'engine.js'), '--data', join(root, '.engine-data'), '--pace', '400'];
if (!extra.includes('--repo')) args.push('--repo', root);
args.push(...extra);

const engine = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => engine.kill(signal));
engine.on('exit', (code) => process.exit(code ?? 0));
