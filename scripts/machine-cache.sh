# Sourced, not run, by setup-vscode.sh and provide-node.sh: the machine-level cache of what they
# install from the npm registry (code-server with Node 24, VS Code for the Web, Node 22), shared by
# every clone of the project on this machine, so that a fresh clone links to it instead of installing
# again. Each entry is a folder named for the exact versions it holds; a clone's .vscode-test/ links
# to it. Nothing writes into an entry once it is installed: each run's folders (user data, extensions,
# logs) stay in the clone's .vscode-test/runs/.
#
# Where: $DEEP_SEARCH_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/deep-search-vscode. Clearing it
# (rm -rf the folder) is always safe: the next `npm test` or `npm start` installs again.
# Without a home folder (HOME unset), the clone's own .vscode-test/cache: nothing shared, still
# installed once per clone.
if [ -n "${DEEP_SEARCH_CACHE:-}" ]; then :
elif [ -n "${XDG_CACHE_HOME:-}" ]; then DEEP_SEARCH_CACHE=$XDG_CACHE_HOME/deep-search-vscode
elif [ -n "${HOME:-}" ]; then DEEP_SEARCH_CACHE=$HOME/.cache/deep-search-vscode
else DEEP_SEARCH_CACHE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.vscode-test/cache
fi

# cache_entry <entry> <verify> <install>: makes $DEEP_SEARCH_CACHE/<entry> a verified install.
# <verify> and <install> are the names of functions called with the entry's folder as $1: <verify>
# succeeds when the folder holds a working install (the right versions, the binaries run); <install>
# fills an empty folder. An entry that fails <verify> (half-copied, broken, another version) is
# installed again: into a temporary folder beside it, verified there, then renamed into place, under
# the entry's lock (flock), so that clones set up at the same time install it once and never see it
# half-done.
cache_entry() {
  local entry=$1 verify=$2 install=$3
  local dir="$DEEP_SEARCH_CACHE/$entry"
  if "$verify" "$dir" >/dev/null 2>&1; then return 0; fi
  mkdir -p "$DEEP_SEARCH_CACHE"
  (
    flock 9
    # Another clone may have installed it while this one waited for the lock.
    if "$verify" "$dir" >/dev/null 2>&1; then exit 0; fi
    tmp=$(mktemp -d "$DEEP_SEARCH_CACHE/.installing-$entry.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    "$install" "$tmp" || exit 1
    if ! "$verify" "$tmp"; then
      echo "The fresh install of $entry in $tmp does not work (see the messages above)." >&2
      exit 1
    fi
    if [ -e "$dir" ]; then
      # A broken entry: moved aside in one rename, then deleted.
      old=$(mktemp -d "$DEEP_SEARCH_CACHE/.broken-$entry.XXXXXX")
      mv "$dir" "$old/"
      rm -rf "$old"
    fi
    mv "$tmp" "$dir"
    trap - EXIT
  ) 9>"$DEEP_SEARCH_CACHE/.lock-$entry" || return 1
  # Verified where it now lives (an install that only works where it was made fails here).
  "$verify" "$dir" || {
    echo "$dir does not work once in place; remove it (rm -rf $dir) and run this again." >&2
    return 1
  }
}

# cache_link <link> <target>: makes <link> (in the clone's .vscode-test/) a symbolic link to
# <target> (in the cache), replacing whatever is there (an install of an older layout, a stale link).
cache_link() {
  local link=$1 target=$2
  [ "$(readlink "$link" 2>/dev/null)" = "$target" ] && return 0
  rm -rf "$link"
  ln -s "$target" "$link"
}
