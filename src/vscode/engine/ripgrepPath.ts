/**
 * Where a VS Code install keeps the ripgrep it ships, handed to the local engine for its early searches.
 * Only `node:fs` and `node:path`: the extension looks it up without loading the engine.
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The ripgrep executable under VS Code's application root (`vscode.env.appRoot`, or code-server's
 * `lib/vscode`), or undefined when there is none: `@vscode/ripgrep` (desktop VS Code, unpacked
 * next to the asar archive in older versions) or `@vscode/ripgrep-universal` (one binary per
 * platform, as code-server has it).
 */
export function ripgrepInVSCode(appRoot: string, platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | undefined {
  const executable = platform === 'win32' ? 'rg.exe' : 'rg';
  const candidates = ['node_modules', 'node_modules.asar.unpacked'].flatMap((modules) => [
    path.join(appRoot, modules, '@vscode', 'ripgrep', 'bin', executable),
    path.join(appRoot, modules, '@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, executable),
  ]);
  return candidates.find(isFile);
}

function isFile(candidate: string): boolean {
  try {
    return statSync(candidate).isFile();
  } catch {
    return false;
  }
}
