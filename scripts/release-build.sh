#!/usr/bin/env bash
# Builds the release binaries that the Action downloads (scripts/action-install.sh): static
# (CGO_ENABLED=0), -trimpath, bot_<os>_<arch> for each of TARGETS, and checksums.txt in
# sha256sum's format, into DIST. VERSION is what `bot version` prints.
# .github/workflows/release.yml runs it on a tag; TestReleaseBuild runs it for one target.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${VERSION:?set VERSION, e.g. v1.2.3}"
dist="$(mkdir -p "${DIST:-dist}" && cd "${DIST:-dist}" && pwd)"
targets="${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}"
assets=()
for target in $targets; do
	os="${target%/*}" arch="${target#*/}"
	CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath -ldflags="-s -w -X main.version=$version" \
		-o "$dist/bot_${os}_${arch}" ./cmd/bot
	assets+=("bot_${os}_${arch}")
done
cd "$dist"
if command -v sha256sum >/dev/null; then
	sha256sum "${assets[@]}" >checksums.txt
else
	shasum -a 256 "${assets[@]}" >checksums.txt
fi
