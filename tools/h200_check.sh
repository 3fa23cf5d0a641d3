#!/usr/bin/env bash
# The GPU round on the H200 test machine (see ../shared/device/README.md): run from the
# repository root there, with .devpack (made by tools/h200_pack.sh) carried along.
# Logs and JSON go under $OUT when set. Sections: tests, sanitizer, solver, case.
set -uo pipefail
out=${OUT:-/tmp/bouss_h200}; mkdir -p "$out"
. .devpack/env
bin=.devpack/bin
sections=${*:-tests sanitizer solver case}
nvidia-smi -L
step() { echo; echo "=== $*"; }
has() { [[ " $sections " == *" $1 "* ]]; }

if has tests; then
  step "gpu tests"
  $bin/bouss_gpu_tests 2>&1 | tee "$out/gpu_tests.log" | grep -E "OK|FAILED|PASSED|Failure|error" | tail -30
fi
if has sanitizer; then
  step "compute-sanitizer memcheck"
  compute-sanitizer --tool memcheck --error-exitcode 9 $bin/bouss_gpu_tests \
    --gtest_filter='GpuOperators.*:GpuGhostFill.*:GpuProjection.LeavesDivergenceAtRoundOffWithPlates:GpuMultigrid.*' 2>&1 | tail -4
fi
if has solver; then
  step "bench relax: paper 004 Figure 2 crossover"
  $bin/bouss bench relax --json > "$out/relax.json"; $bin/bouss bench relax 2>&1 | tail -12
  for n in 128,128,128 256,256,128 384,384,192; do
    step "bench poisson $n"
    $bin/bouss bench poisson --n $n --bc mixed --solver mg,mg_mixed,csr_cg --repeats 3 --json > "$out/poisson_mixed_${n//,/x}.json"
    $bin/bouss bench poisson --n $n --bc periodic --solver mg,fft --repeats 3 --json > "$out/poisson_periodic_${n//,/x}.json"
    python3 - "$out/poisson_mixed_${n//,/x}.json" "$out/poisson_periodic_${n//,/x}.json" <<'PY'
import json, sys
for f in sys.argv[1:]:
    for r in json.load(open(f)):
        print(f"{r['bc']:9} {r['solver']:9} cycles {r['cycles']:5} factor {r['convergence_factor']:.3f} "
              f"{r['ms']:9.3f} ms  {r['bytes_per_cell']:7.0f} B/cell  {r['effective_GBps']:7.1f} GB/s  "
              f"floor {r['floor_ms']:.3f} ms  final {r['final_max_residual']:.1e}")
PY
  done
  step "multigrid options at 256x256x128 (mixed bc): graphs, host coarse levels, FMG"
  for opts in "--cuda-graphs false" "--cuda-graphs true" "--cpu-coarse-cells 512" "--cpu-coarse-cells 4096" \
              "--cpu-coarse-cells 32768" "--fmg false"; do
    echo "-- $opts"
    $bin/bouss bench poisson --n 256,256,128 --bc mixed --solver mg,mg_mixed --repeats 5 $opts 2>&1 | grep -E " mg" 
  done
fi
if has case; then
  step "bench: paper 004 Ra = 1e7, 256x256x128, cuda (default, then variants)"
  $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps 20 --warmup 20 --json | tee "$out/bench_ra1e7_cuda.json" \
    | grep -E "ms_per_step\"|cycles|effective|floor_ms"
  for v in pressure.cuda_graphs=false pressure.cpu_coarse_cells=4096 pressure.mixed_precision=true pressure.fmg=false; do
    echo "-- $v"
    $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cuda --steps 20 --warmup 20 --set $v 2>&1 | grep -E "median|cycles"
  done
  step "bench: paper 004 Ra = 1e7, cpu ($(nproc) threads)"
  $bin/bouss bench cases/rayleigh_benard_ra1e7.json --backend cpu --steps 3 --warmup 2 --json | tee "$out/bench_ra1e7_cpu.json" \
    | grep -E "ms_per_step\"|cycles"
fi
