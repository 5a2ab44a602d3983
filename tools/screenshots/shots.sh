#!/bin/sh
# shots.sh renders the PR comment of every scenario and screenshots it:
#   tools/screenshots/shots.sh [--open] [OUTDIR]      (default /tmp/tiergate-shots)
# --open also writes NAME-open.png with every <details> expanded.
# Scenarios: testdata/scenarios/* and, when present, $SHARED/scenarios/* (default ../shared).
# Needs Go, Node and npm (`npm ci` here once) and a Chromium (Debian package `chromium`).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
open=""
if [ "${1:-}" = --open ]; then open=--open; shift; fi
out=${1:-/tmp/tiergate-shots}
shared=${SHARED:-$root/../shared}
mkdir -p "$out/md"
(cd "$root" && go build -o "$out/bot" ./cmd/bot)
pairs=""
for s in "$root"/testdata/scenarios/*/ "$shared"/scenarios/*/; do
  [ -d "$s/base" ] && [ -d "$s/head" ] || continue
  name=$(basename "$s")
  # Commit base and head as two commits, as a PR has them, so that the comment shows
  # commits (fixed author and dates: the same shas every run).
  repo="$out/repos/$name"
  rm -rf "$repo" && mkdir -p "$repo"
  git -C "$repo" init -q
  for side in base head; do
    find "$repo" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
    cp -R "$s/$side/." "$repo/"
    git -C "$repo" add -A
    GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
      git -C "$repo" -c user.name=tiergate -c user.email=tiergate@example.invalid \
      commit -q --allow-empty -m "$side"
  done
  # Exit status 1 only says there are new findings.
  "$out/bot" review --repo "$repo" --base HEAD~1 --head HEAD >"$out/md/$name.md" || [ $? -eq 1 ]
  pairs="$pairs $name=$out/md/$name.md"
done
[ -d "$here/node_modules" ] || (cd "$here" && npm ci --no-audit --no-fund)
# shellcheck disable=SC2086 # pairs are NAME=FILE words without spaces
node "$here/shoot.mjs" $open "$out" $pairs
