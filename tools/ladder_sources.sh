#!/usr/bin/env bash
# Rebuilds the ladder test set's sources (src.y4m, src_ffv1.mkv, src10.y4m: 24 frames of a slow pan
# over a photo, 250 MB together, too large to keep in the repository) into a cache directory, and
# checks them against tests/data/ladder/manifest.json. The photo comes from Debian's
# plasma-workspace-wallpapers package (fetched with apt-get download, not installed); the frames
# are made by tests/data/ladder/make_ladder.sh with Debian's ffmpeg. Does nothing when the cache
# already holds the right files. The ladder parity tests read the cache and skip without it.
#
#   tools/ladder_sources.sh [DIR]   (default: $SSIMD_LADDER_SOURCES, else /var/cache/ssimd/ladder-sources)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-${SSIMD_LADDER_SOURCES:-/var/cache/ssimd/ladder-sources}}"
MANIFEST="$ROOT/tests/data/ladder/manifest.json"
SOURCES=(src.y4m src_ffv1.mkv src10.y4m)

# The expected sha256 of each source, one "HASH  NAME" line each (sha256sum -c's format).
expected_sums() {
  python3 - "$MANIFEST" "${SOURCES[@]}" <<'PY'
import json, sys
manifest = json.load(open(sys.argv[1]))
for name in sys.argv[2:]:
    print(f"{manifest[name]}  {name}")
PY
}

up_to_date() {
  (cd "$OUT" 2>/dev/null && expected_sums | sha256sum --quiet -c - >/dev/null 2>&1)
}

if up_to_date; then
  echo "ladder_sources: $OUT is up to date"
  exit 0
fi
for tool in ffmpeg apt-get dpkg-deb python3; do
  command -v "$tool" >/dev/null || { echo "ladder_sources: $tool not found" >&2; exit 1; }
done
mkdir -p "$OUT"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "ladder_sources: fetching the photo (plasma-workspace-wallpapers, about 94 MB)"
# apt-get download writes into the current directory; the _apt user may not be able to, which
# only costs a warning.
(cd "$work" && apt-get download -q plasma-workspace-wallpapers >/dev/null 2>&1) || {
  echo "ladder_sources: apt-get download plasma-workspace-wallpapers failed (no archive?)" >&2
  exit 1
}
dpkg-deb -x "$work"/plasma-workspace-wallpapers_*.deb "$work/photos"
photo="$work/photos/usr/share/wallpapers/Autumn/contents/images/2560x1440.jpg"
echo "ladder_sources: making the sources in $OUT"
SOURCES_ONLY=1 "$ROOT/tests/data/ladder/make_ladder.sh" "$work/out" "$photo" 24
for name in "${SOURCES[@]}"; do mv -f "$work/out/$name" "$OUT/$name"; done
if ! up_to_date; then
  echo "ladder_sources: the rebuilt sources differ from manifest.json (another ffmpeg?)" >&2
  (cd "$OUT" && expected_sums | sha256sum -c - >&2) || true
  exit 1
fi
echo "ladder_sources: $OUT holds the sources, checked against manifest.json"
