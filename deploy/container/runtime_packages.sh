#!/usr/bin/env bash
# Prints the Debian packages that provide the shared libraries the given binaries load (one per
# line, sorted), so the runtime image installs exactly those and no -dev package.
set -euo pipefail
if (($# == 0)); then
  echo "usage: $0 BINARY..." >&2
  exit 2
fi
for binary in "$@"; do
  ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | while read -r lib; do
  # With merged /usr, ldd may name /lib/... while dpkg recorded /usr/lib/... (or the other way).
  real=$(readlink -f "$lib")
  for candidate in "$lib" "$real" "/usr$lib" "${real#/usr}"; do
    if owner=$(dpkg-query -S "$candidate" 2>/dev/null); then
      echo "${owner%%:*}"
      break
    fi
  done
done | sort -u
