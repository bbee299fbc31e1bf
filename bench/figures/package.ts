/**
 * What users download: the production bundles (bench/run.ts builds them) and the VSIX that
 * `vsce package` makes of them (what goes in is listed in .vscodeignore).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { kb, type BenchContext, type Figure, type Row } from '../report';

/** What `vsce` may take (.vscodeignore then narrows it): copied out, since vsce walks every file of its folder. */
const PACKAGED = ['package.json', 'package.nls.json', 'README.md', 'CHANGELOG.md', '.vscodeignore', 'dist', 'media'];

async function run(context: BenchContext): Promise<Row[]> {
  const staging = path.join(context.scratch, 'package');
  for (const entry of PACKAGED) cpSync(path.join(context.root, entry), path.join(staging, entry), { recursive: true });
  const vsix = path.join(context.scratch, 'deep-search.vsix');
  execFileSync(process.execPath, [path.join(context.root, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--out', vsix], {
    cwd: staging,
    stdio: 'pipe',
  });
  const dist = path.join(context.root, 'dist');
  const bundles = readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => ({ file, bytes: statSync(path.join(dist, file)).size }))
    .sort((a, b) => b.bytes - a.bytes);
  const total = bundles.reduce((sum, bundle) => sum + bundle.bytes, 0);
  const vsixBytes = statSync(vsix).size;
  return [
    {
      figure: 'package: all JavaScript (minified bundles)',
      measured: `${kb(total)}: ${bundles.map((bundle) => `${bundle.file} ${kb(bundle.bytes)}`).join(', ')}`,
      baseline: '—',
      goal: '≤ 1.2 MB',
      met: total <= 1.2 * 1024 * 1024,
      data: { bundles },
    },
    { figure: 'package: VSIX (vsce package)', measured: kb(vsixBytes), baseline: '—', goal: '≤ 600 KB', met: vsixBytes <= 600 * 1024, data: { bytes: vsixBytes } },
  ];
}

export const packageFigure: Figure = { id: 'package', title: 'Package size', run };
