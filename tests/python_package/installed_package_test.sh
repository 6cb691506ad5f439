#!/usr/bin/env bash
# Installs python/ as a user would (`python3 -m venv --system-site-packages` and
# `pip install --no-deps`) with no package index, then runs installed_package_test.py with the
# environment's python: the example, the package README's snippet and the API against a server.
# Usage: installed_package_test.sh PYTHON3 (Debian's, which has python3-grpcio)
set -euo pipefail
python=$(realpath "$1")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/package.XXXXXX")

if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
  echo "installed_package_test: $python has no venv/ensurepip: apt-get install python3-venv" >&2
  exit 1
fi
# Runfiles are symbolic links into the source tree, some read-only: install from a plain copy.
cp -RL python "$work/src"
chmod -R u+w "$work/src"
"$python" -m venv --system-site-packages "$work/venv"
# No index and no local pip configuration: the build must need nothing from outside.
PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
  "$work/venv/bin/pip" install --no-deps "$work/src" >"$work/pip.log" 2>&1 ||
  { cat "$work/pip.log"; exit 1; }
tail -1 "$work/pip.log"
# The copy's packages must not be the ones tested: take them away from it.
rm -rf "$work/src/ssimd_client" "$work/src/ssimd"
SSIMD_PACKAGE_SRC="$work/src" exec "$work/venv/bin/python" \
  tests/python_package/installed_package_test.py
