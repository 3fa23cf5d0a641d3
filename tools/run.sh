#!/usr/bin/env bash
# Sets up and builds bouss (tools/setup.sh), then runs a case:
#   tools/run.sh                      the default case, cases/rayleigh_benard.json
#   tools/run.sh CASE.json [flags]    another case, with `bouss run` flags (--backend, --set, --output)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh"
build=${BOUSS_BUILD_DIR:-$root/build}
if [ $# -eq 0 ] || [[ "$1" == -* ]]; then
  set -- "$root/cases/rayleigh_benard.json" "$@"
fi
exec "$build/bouss" run "$@"
