#!/usr/bin/env bash
# Installs the bot binary for the GitHub Action (action.yml): downloads the release asset
# of the action's ref for this runner and verifies it against the release's checksums.txt.
# A ref without a release (a branch, a commit, a local `uses: ./`) prints build=true to
# $GITHUB_OUTPUT so that the Action builds it with Go instead; any other failure (a
# checksum mismatch, a server error) fails the step: a bad download is never run.
#
# Environment: TG_REPO (owner/name), TG_REF (a tag such as v1.2.3, or empty), TG_DEST (the
# binary to write), RUNNER_OS (Linux, macOS), RUNNER_ARCH (X64, ARM64), GITHUB_OUTPUT;
# TG_RELEASES_URL (default https://github.com) is the server, changed only by the tests.
set -euo pipefail

base="${TG_RELEASES_URL:-https://github.com}"
out="${GITHUB_OUTPUT:-/dev/null}"

build() {
	echo "tiergate: $1; building it with Go"
	echo "build=true" >>"$out"
	exit 0
}

case "${RUNNER_OS:-}" in
Linux) os=linux ;;
macOS) os=darwin ;;
*) build "no release binary for RUNNER_OS '${RUNNER_OS:-}'" ;;
esac
case "${RUNNER_ARCH:-}" in
X64) arch=amd64 ;;
ARM64) arch=arm64 ;;
*) build "no release binary for RUNNER_ARCH '${RUNNER_ARCH:-}'" ;;
esac
[ -n "${TG_REF:-}" ] && [ -n "${TG_REPO:-}" ] || build "the action's ref is unknown (a local action)"

asset="bot_${os}_${arch}"
url="$base/$TG_REPO/releases/download/$TG_REF"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# fetch URL FILE prints the HTTP status; curl fails only on a transport error. Redirects
# (GitHub sends assets to its object store) are followed over https only.
fetch() {
	curl --silent --show-error --location --retry 3 --proto '=https,http' --proto-redir '=https' -o "$2" -w '%{http_code}' "$1"
}

code="$(fetch "$url/checksums.txt" "$tmp/checksums.txt")"
case "$code" in
200) ;;
404) build "no release $TG_REF of $TG_REPO" ;;
*)
	echo "tiergate: GET $url/checksums.txt: HTTP $code" >&2
	exit 1
	;;
esac
want="$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")"
if [ -z "$want" ]; then
	echo "tiergate: $url/checksums.txt has no line for $asset" >&2
	exit 1
fi
code="$(fetch "$url/$asset" "$tmp/$asset")"
if [ "$code" != 200 ]; then
	echo "tiergate: GET $url/$asset: HTTP $code" >&2
	exit 1
fi
if command -v sha256sum >/dev/null; then
	got="$(sha256sum "$tmp/$asset" | cut -d' ' -f1)"
else
	got="$(shasum -a 256 "$tmp/$asset" | cut -d' ' -f1)"
fi
if [ "$got" != "$want" ]; then
	echo "tiergate: $asset of release $TG_REF: sha256 $got, checksums.txt says $want; not installed" >&2
	exit 1
fi
chmod +x "$tmp/$asset"
mv "$tmp/$asset" "$TG_DEST"
echo "tiergate: installed $asset of release $TG_REF (sha256 $got)"
echo "build=false" >>"$out"
