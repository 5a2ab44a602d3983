#!/usr/bin/env bash
# Side by side with flate (issue 16): times `bot review` and `flate diff ks --base` on the
# corpus pairs of ../shared/corpus/README.md, cold and warm, interleaved, REPS times each
# (default 3), with peak RSS (GNU time's %M), and prints the medians and the ratios
# flate / tiergate. Not run by CI. flate is a benchmark peer only, never a dependency: it is
# built with `go install` into the scratch folder (removed at exit).
#
# usage: docs/bench-flate.sh [REPS]
# env:   PAIRS   at most this many pairs per repository (default: all)
#        CORPUS  the corpus folder (default ../shared/corpus)
#        FLATE   a flate v0.6.5 binary to use instead of building one
#        KEEP    a file to copy the raw measurements (TSV) to
#
# cold: an empty cache folder for each run (tiergate's --cache-dir, flate's --cache-dir).
# warm: the cache folder filled by the same tool on the previous commit (base^..base, not
#       timed), then base..head timed: a PR's review after the default branch's.
# flate runs with HTTPS_PROXY=127.0.0.1:9, a proxy that refuses at once: it has no network
# here and would stall on DNS for its remote sources.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
corpus=${CORPUS:-../shared/corpus}
[ -x /usr/bin/time ] || { echo "bench-flate.sh: GNU time (/usr/bin/time) is required for peak RSS" >&2; exit 2; }
[ -f "$corpus/README.md" ] || { echo "bench-flate.sh: no corpus at $corpus" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/bot" ./cmd/bot
flate=${FLATE:-}
if [ -z "$flate" ]; then
	GOBIN="$work/bin" GOTOOLCHAIN=go1.27.3 go install github.com/home-operations/flate/cmd/flate@v0.6.5
	flate="$work/bin/flate"
fi
# Peak RSS counts the executable's pages mapped from the page cache, and an executable the
# linker has just written maps in larger pieces (`bot version`: 99 MiB against 60 MiB for a
# copy of the same file): both are copied before they are timed, so both are measured alike.
cp "$work/bot" "$work/bot.copy" && mv "$work/bot.copy" "$work/bot"
cp "$flate" "$work/flate" && flate="$work/flate"

# The pairs: "repo new parent" per row of the README's "### owner/name" sections.
awk -v max="${PAIRS:-0}" '
	/^### / { repo = $2; gsub("/", "-", repo); n = 0 }
	/^\| [0-9a-f]+ \| [0-9a-f]+ \|/ && length($2) == 40 && length($4) == 40 { if (max == 0 || n < max) print repo, $2, $4; n++ }
' "$corpus/README.md" >"$work/pairs"

# timed LABEL PAIR CMD...: runs CMD, appends "PAIR LABEL wall cpu rss-KiB exit".
timed() {
	local label=$1 pair=$2
	shift 2
	local rc=0
	/usr/bin/time -f '%e %U %S %M' -o "$work/t" "$@" >/dev/null 2>"$work/err" || rc=$?
	read -r wall user sys rss < <(tail -1 "$work/t")
	echo "$pair $label $wall $(echo "$user $sys" | awk '{ print $1 + $2 }') $rss $rc" >>"$work/runs"
}

# $work/bot-review CLONE CACHE BASE HEAD; $work/flate-diff CLONE CACHE BASE HEAD (flate reads
# the work tree as the head): scripts, so that GNU time runs them.
cat >"$work/bot-review" <<EOS
#!/usr/bin/env bash
exec "$work/bot" review --repo "\$1" --base "\$3" --head "\$4" --no-merge-base --format json --cache-dir "\$2"
EOS
cat >"$work/flate-diff" <<EOS
#!/usr/bin/env bash
set -e
git -C "\$1" checkout -q --detach "\$4"
cd "\$1"
HTTPS_PROXY=127.0.0.1:9 HTTP_PROXY=127.0.0.1:9 exec "$flate" diff ks --base "\$3" --path kubernetes --cache-dir "\$2"
EOS
chmod +x "$work/bot-review" "$work/flate-diff"

: >"$work/runs"
while read -r repo head base; do
	clone="$work/$repo"
	[ -d "$clone" ] || git clone -q -b main "$corpus/$repo.bundle" "$clone"
	pair="$repo@${head:0:8}"
	prev=$(git -C "$clone" rev-parse "$base^")
	for _ in $(seq "$reps"); do
		rm -rf "$work/c"
		timed tiergate-cold "$pair" "$work/bot-review" "$clone" "$work/c" "$base" "$head"
		rm -rf "$work/c"
		timed flate-cold "$pair" "$work/flate-diff" "$clone" "$work/c" "$base" "$head"
		rm -rf "$work/c"
		"$work/bot-review" "$clone" "$work/c" "$prev" "$base" >/dev/null 2>&1 || true
		timed tiergate-warm "$pair" "$work/bot-review" "$clone" "$work/c" "$base" "$head"
		rm -rf "$work/c"
		"$work/flate-diff" "$clone" "$work/c" "$prev" "$base" >/dev/null 2>&1 || true
		timed flate-warm "$pair" "$work/flate-diff" "$clone" "$work/c" "$base" "$head"
	done
done <"$work/pairs"
[ -z "${KEEP:-}" ] || cp "$work/runs" "$KEEP"

# Medians of wall and CPU seconds, the largest peak RSS, per pair and label; then ratios.
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?); $reps runs each, interleaved; medians (s), peak RSS (MiB)"
printf '%-34s %8s %8s %8s %8s %7s %7s %8s %8s %6s %s\n' pair tg-cold tg-warm fl-cold fl-warm cold-x warm-x tg-MiB fl-MiB rss-x exits
sort -k1,1 -k2,2 -k3,3n "$work/runs" | awk '
	function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	{ k = $1 SUBSEP $2; n[k]++; w[k, n[k]] = $3; if ($5 > r[k]) r[k] = $5; x[k] = x[k] $6; pairs[$1] = 1 }
	END {
		for (p in pairs) {
			split("tiergate-cold tiergate-warm flate-cold flate-warm", L, " ")
			ex = ""
			for (i = 1; i <= 4; i++) {
				k = p SUBSEP L[i]; delete a
				for (j = 1; j <= n[k]; j++) a[j] = w[k, j]
				m[i] = med(a, n[k]); ex = ex " " substr(L[i], 1, 1) substr(L[i], index(L[i], "-") + 1, 1) "=" x[k]
			}
			tc = r[p SUBSEP "tiergate-cold"] / 1024; fc = r[p SUBSEP "flate-cold"] / 1024
			printf "%-34s %8.2f %8.2f %8.2f %8.2f %7.1f %7.1f %8.0f %8.0f %6.1f%s\n", p, m[1], m[2], m[3], m[4],
				m[3] / m[1], m[4] / m[2], tc, fc, fc / tc, ex
		}
	}' | sort
