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
  # Run inside the scenario so that the comment names the trees "base" and "head".
  # Exit status 1 only says there are new findings.
  (cd "$s" && "$out/bot" review --base-dir base --head-dir head >"$out/md/$name.md") || [ $? -eq 1 ]
  pairs="$pairs $name=$out/md/$name.md"
done
[ -d "$here/node_modules" ] || (cd "$here" && npm ci --no-audit --no-fund)
# shellcheck disable=SC2086 # pairs are NAME=FILE words without spaces
node "$here/shoot.mjs" $open "$out" $pairs
