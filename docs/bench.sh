#!/bin/sh
# Benchmarks tiergate against the naive baseline (issue 4) on generated fleets and prints,
# per fleet size and PR shape: wall time, allocations and peak RSS of each, and the ratio.
#
# usage: docs/bench.sh [size...]        sizes: 50 300 2000 50x3 (default: 50 300)
# env:   BENCHTIME (default 1x: one review per process), IMPLS (default "Naive Tiergate")
#
# Each case runs in its own process of one test binary, so its peak RSS (GNU time's %M,
# /usr/bin/time is required) is that case's alone. Fleets are generated once per size, in a
# separate process, into a scratch cache (TIERGATE_FLEET_DIR) removed at exit.
set -eu
cd "$(dirname "$0")/.."
sizes=${*:-50 300}
shapes="one-file move-object rename-tier shared-base"
impls=${IMPLS:-Naive Tiergate}
benchtime=${BENCHTIME:-1x}
[ -x /usr/bin/time ] || { echo "bench.sh: GNU time (/usr/bin/time) is required for peak RSS" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TIERGATE_FLEET_DIR="$work/fleets"
mkdir -p "$TIERGATE_FLEET_DIR"
go test -c -o "$work/fleet.test" ./internal/fleet

# run <bench regexp>: prints "ns/op allocs/op B/op maxrss-KiB" of the single case selected.
run() {
	/usr/bin/time -f '%M' -o "$work/rss" "$work/fleet.test" -test.run '^$' -test.bench "$1" \
		-test.benchtime "$benchtime" -test.benchmem >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
	line=$(grep -E '^Benchmark' "$work/out" | grep 'ns/op' | tail -1)
	[ -n "$line" ] || { cat "$work/out" >&2; echo "bench.sh: no result for $1" >&2; exit 1; }
	echo "$line" | awk -v rss="$(tail -1 "$work/rss")" '{
		for (i = 1; i <= NF; i++) { if ($i == "ns/op") ns = $(i-1); if ($i == "B/op") by = $(i-1); if ($i == "allocs/op") al = $(i-1) }
		print ns, al, by, rss }'
}

printf '%-6s %-12s %-9s %10s %8s %10s %11s %8s\n' size shape impl seconds MiB-RSS GB-alloc allocs ratio
for size in $sizes; do
	"$work/fleet.test" -test.run '^$' -test.bench "^BenchmarkWrite\$/^$size\$" -test.benchtime 1x >"$work/out" 2>&1 ||
		{ cat "$work/out" >&2; exit 1; }
	for shape in $shapes; do
		base=""
		for impl in $impls; do
			set -- $(run "^Benchmark$impl\$/^$size\$/^$shape\$")
			ratio=$(awk -v ns="$1" -v b="${base:-$1}" 'BEGIN { printf "%.2f", ns / b }')
			[ -n "$base" ] || base=$1
			awk -v sz="$size" -v sh="$shape" -v im="$impl" -v ns="$1" -v al="$2" -v by="$3" -v rss="$4" -v r="$ratio" 'BEGIN {
				printf "%-6s %-12s %-9s %10.2f %8.0f %10.2f %11d %8s\n", sz, sh, im, ns / 1e9, rss / 1024, by / 1e9, al, r }'
		done
	done
done
echo "ratio: time of the row / time of the first implementation's row (${impls%% *}) for the same case"
