#!/usr/bin/env bash
# The GPU round on the H200 test machine (see ../shared/device/README.md): run from the
# repository root there, with .devpack (made by tools/h200_pack.sh) carried along.
# Writes logs and JSON under $OUT when set.
set -uo pipefail
out=${OUT:-/tmp/bouss_h200}; mkdir -p "$out"
. .devpack/env
nvidia-smi -L
step() { echo; echo "=== $*"; }
step "gpu tests"
.devpack/bin/bouss_gpu_tests 2>&1 | tee "$out/gpu_tests.log" | tail -30
step "compute-sanitizer memcheck (operators, ghost fills, projection)"
compute-sanitizer --tool memcheck --error-exitcode 9 .devpack/bin/bouss_gpu_tests \
  --gtest_filter='GpuOperators.*:GpuGhostFill.*:GpuProjection.LeavesDivergenceAtRoundOffWithPlates' 2>&1 | tail -5
step "bench: default case, cuda"
.devpack/bin/bouss bench cases/rayleigh_benard.json --backend cuda --steps 20 --warmup 10 2>&1 | tail -4
step "bench: paper 004 Ra = 1e7, 256x256x128, cuda"
.devpack/bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps 20 --warmup 20 --json | tee "$out/bench_ra1e7_cuda.json"
step "bench: paper 004 Ra = 1e7, 256x256x128, cpu ($(nproc) threads)"
.devpack/bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cpu --steps 3 --warmup 2 --json | tee "$out/bench_ra1e7_cpu.json"
