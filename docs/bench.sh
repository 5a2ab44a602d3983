#!/bin/sh
# Benchmarks tiergate against the naive baseline (issue 4) on generated fleets and prints,
# per fleet size and PR shape: wall and CPU time, allocations and peak RSS of each, and ratios.
#
# usage: docs/bench.sh [size...]        sizes: 50 300 2000 50x3 (default: 50 300)
# env:   BENCHTIME (default 1x: one review per process), IMPLS (default "Naive Tiergate"),
#        SHAPES (default all four: one-file move-object rename-tier shared-base)
#
# Each case runs in its own process of one test binary, so its peak RSS (GNU time's %M,
# /usr/bin/time is required) is that case's alone. Fleets are generated once per size, in a
# separate process, into a scratch cache (TIERGATE_FLEET_DIR) removed at exit.
set -eu
cd "$(dirname "$0")/.."
sizes=${*:-50 300}
shapes=${SHAPES:-one-file move-object rename-tier shared-base}
impls=${IMPLS:-Naive Tiergate}
benchtime=${BENCHTIME:-1x}
[ -x /usr/bin/time ] || { echo "bench.sh: GNU time (/usr/bin/time) is required for peak RSS" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TIERGATE_FLEET_DIR="$work/fleets"
mkdir -p "$TIERGATE_FLEET_DIR"
go test -c -o "$work/fleet.test" ./internal/fleet

# run <bench regexp>: prints "ns/op allocs/op B/op maxrss-KiB cpu-seconds" of the single case
# selected (CPU: user+system of the whole process, which on a shared machine says more than
# wall time).
run() {
	/usr/bin/time -f '%M %U %S' -o "$work/rss" "$work/fleet.test" -test.run '^$' -test.bench "$1" \
		-test.benchtime "$benchtime" -test.benchmem >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
	line=$(grep -E '^Benchmark' "$work/out" | grep 'ns/op' | tail -1)
	[ -n "$line" ] || { cat "$work/out" >&2; echo "bench.sh: no result for $1" >&2; exit 1; }
	set -- $(tail -1 "$work/rss")
	echo "$line" | awk -v rss="$1" -v cpu="$(echo "$2 $3" | awk '{ print $1 + $2 }')" '{
		for (i = 1; i <= NF; i++) { if ($i == "ns/op") ns = $(i-1); if ($i == "B/op") by = $(i-1); if ($i == "allocs/op") al = $(i-1) }
		print ns, al, by, rss, cpu }'
}

printf '%-6s %-12s %-9s %9s %8s %8s %10s %11s %7s %7s\n' size shape impl wall-s cpu-s MiB-RSS GB-alloc allocs ratio cpu-rat
for size in $sizes; do
	"$work/fleet.test" -test.run '^$' -test.bench "^BenchmarkWrite\$/^$size\$" -test.benchtime 1x >"$work/out" 2>&1 ||
		{ cat "$work/out" >&2; exit 1; }
	for shape in $shapes; do
		base="" basecpu=""
		for impl in $impls; do
			set -- $(run "^Benchmark$impl\$/^$size\$/^$shape\$")
			[ -n "$base" ] || { base=$1; basecpu=$5; }
			awk -v sz="$size" -v sh="$shape" -v im="$impl" -v ns="$1" -v al="$2" -v by="$3" -v rss="$4" -v cpu="$5" \
				-v b="$base" -v bc="$basecpu" 'BEGIN {
				printf "%-6s %-12s %-9s %9.2f %8.2f %8.0f %10.2f %11d %7.2f %7.2f\n", sz, sh, im, ns / 1e9, cpu, rss / 1024, by / 1e9, al, ns / b, cpu / bc }'
		done
	done
done
echo "ratio, cpu-rat: wall time, CPU time of the row / of the ${impls%% *} row of the same case"
