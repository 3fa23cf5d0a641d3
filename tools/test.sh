#!/usr/bin/env bash
# Sets up and builds bouss (tools/setup.sh), then runs the whole test suite with CTest
# (labels unit, convergence, physics, gpu, mpi; gpu tests skip, reported as such, without a GPU;
# the mpi tests run under mpirun on CPU ranks).
# Extra arguments go to ctest, e.g. tools/test.sh -L unit.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh"
build=${BOUSS_BUILD_DIR:-$root/build}
# Tests run side by side, one per core: one OpenMP thread each keeps the machine from
# being oversubscribed.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
ctest --test-dir "$build" -j"$(nproc)" --output-on-failure "$@"
