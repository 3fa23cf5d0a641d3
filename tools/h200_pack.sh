#!/usr/bin/env bash
# Builds for the H200 (sm_90) and gathers the executables, libbouss and the libraries the
# GPU machine lacks into .devpack (git-ignored), for tools/h200_check.sh to run there.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.devpack/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo /.devpack/ >> .git/info/exclude; }
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build build -j"$(nproc)"
rm -rf .devpack
../shared/device/pack .devpack build/bouss build/tests/bouss_gpu_tests build/tests/bouss_physics_tests \
  build/tests/bouss_unit_tests build/tests/bouss_convergence_tests
