#!/usr/bin/env bash
# npm's script shell in CI (.ci/run sets it): runs each npm script as sh -c would, then says how long
# it took, so the log names each test layer's time; with DEEP_SEARCH_LAYER_TIMES, also appends it there.
[ "${1:-}" = "-c" ] && shift
started=$SECONDS
status=0
sh -c "$1" || status=$?
line="$(printf '%-14s %5d s%s' "${npm_lifecycle_event:-script}" $((SECONDS - started)) "$([ $status -eq 0 ] || echo "  (failed: exit $status)")")"
echo "--- $line"
if [ -n "${DEEP_SEARCH_LAYER_TIMES:-}" ]; then echo "$line" >>"$DEEP_SEARCH_LAYER_TIMES"; fi
exit $status
