#!/usr/bin/env bash
# Sets up and builds bouss (tools/setup.sh), then runs a case:
#   tools/run.sh                      the default case, cases/rayleigh_benard.json (replacing
#                                     its earlier output: --overwrite)
#   tools/run.sh CASE.json [flags]    another case, with `bouss run` flags (--backend, --set, --output)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh"
build=${BOUSS_BUILD_DIR:-$root/build}
# The default case replaces its own earlier output (--overwrite), so that the README's
# command works again on a second call; another case is run as given.
if [ $# -eq 0 ] || [[ "$1" == -* ]]; then
  set -- "$root/cases/rayleigh_benard.json" --overwrite "$@"
fi
# The command itself, so that a newcomer sees where bouss is and how to call it again.
echo "tools/run.sh: $build/bouss run $*" >&2
exec "$build/bouss" run "$@"
